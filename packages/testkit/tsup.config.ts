import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/vitest.ts"],
  format: ["esm"],
  dts: { entry: ["src/index.ts", "src/vitest.ts"] },
  sourcemap: true,
  clean: true,
  target: "node20",
});
