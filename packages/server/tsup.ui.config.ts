import { defineConfig } from "tsup";

/**
 * The report page (`GET /ui`): Preact and the page's code bundled into one script for the
 * browser, with its stylesheet and HTML shell, under dist/ui. Nothing is loaded from elsewhere
 * (no CDN): the gateway serves these files and the page works offline.
 */
export default defineConfig({
  entry: { app: "ui/src/main.tsx" },
  outDir: "dist/ui",
  format: ["iife"],
  platform: "browser",
  target: "es2020",
  minify: true,
  sourcemap: false,
  clean: true,
  dts: false,
  noExternal: [/.*/],
  publicDir: "ui/public",
  tsconfig: "ui/tsconfig.json",
  esbuildOptions(options) {
    options.jsx = "automatic";
    options.jsxImportSource = "preact";
    options.legalComments = "none";
  },
  outExtension: () => ({ js: ".js" }),
});
