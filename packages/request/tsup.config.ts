import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // The prompt assets under prompt/cursor/ are imported as text and inlined into dist, so an
  // installed package renders exactly the prompts it was built with.
  loader: { ".md": "text" },
});
