import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // fresh-clone.test.mjs has its own run (vitest.fresh-clone.config.mjs), after the build.
    exclude: ["**/node_modules/**", "fresh-clone.test.mjs"],
    // Each case cruises a copy of the whole workspace; on a loaded machine that takes a while.
    testTimeout: 120_000,
  },
});
