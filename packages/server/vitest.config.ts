import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    // The end-to-end suites start real gateway processes and HTTP servers: child processes
    // and sockets are safer in forked workers, and a loaded 2-core CI machine needs headroom.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
