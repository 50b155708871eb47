import { defineConfig } from "tsup";

export default defineConfig({
  // The pass-through proxy and the SDK relay run as their own processes (the overhead part's
  // floors).
  entry: {
    cli: "src/cli.ts",
    "pass-through-proxy": "src/overhead/pass-through-proxy-main.ts",
    "sdk-relay": "src/overhead/sdk-relay-main.ts",
  },
  format: ["esm"],
  sourcemap: true,
  clean: true,
  target: "node20",
});
