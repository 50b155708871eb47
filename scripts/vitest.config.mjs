import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Each case cruises a copy of the whole workspace; on a loaded machine that takes a while.
    testTimeout: 120_000,
  },
});
