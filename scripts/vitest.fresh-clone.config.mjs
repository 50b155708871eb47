import { defineConfig } from "vitest/config";

// The fresh-clone test runs after the build in `pnpm test` (it reuses turbo's cache), on its own.
export default defineConfig({
  test: {
    include: ["fresh-clone.test.mjs"],
    testTimeout: 900_000,
    hookTimeout: 120_000,
  },
});
