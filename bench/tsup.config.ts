import { defineConfig } from "tsup";

export default defineConfig({
  // The pass-through proxy runs as its own process (the floor of the overhead part).
  entry: { cli: "src/cli.ts", "pass-through-proxy": "src/overhead/pass-through-proxy-main.ts" },
  format: ["esm"],
  sourcemap: true,
  clean: true,
  target: "node20",
});
