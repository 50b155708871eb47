// The only allowed dependency direction between workspace packages (docs/architecture.md).
// `runtime`: what a package's published code (and its package.json dependencies) may use.
// `dev`: what its tests may additionally use (devDependencies).
// `testTooling`: a package for tests only; it alone may carry test tooling (`testToolingPackages`)
// in its dependencies, and no other package may depend on it at runtime.
export const layers = {
  "@cursor/run": { dir: "run", runtime: [], dev: [] },
  "@cursor/request": { dir: "request", runtime: ["@cursor/run"], dev: [] },
  "@cursor/checkpoint": { dir: "checkpoint", runtime: ["@cursor/run"], dev: [] },
  "@cursor/projection": {
    dir: "projection",
    runtime: ["@cursor/run", "@cursor/request", "@cursor/checkpoint"],
    dev: ["@cursor/testkit"],
  },
  "@cursor/provider-openai-responses": {
    dir: "provider-openai-responses",
    runtime: ["@cursor/run"],
    dev: ["@cursor/testkit"],
  },
  "@cursor/provider-openai-chat": {
    dir: "provider-openai-chat",
    runtime: ["@cursor/run"],
    dev: ["@cursor/testkit"],
  },
  "@cursor/provider-anthropic": {
    dir: "provider-anthropic",
    runtime: ["@cursor/run"],
    dev: ["@cursor/testkit"],
  },
  // Runtime code: the gateway's `simulated` provider runs it, so it carries no test tooling.
  "@cursor/fake-provider": { dir: "fake-provider", runtime: ["@cursor/run"], dev: [] },
  "@cursor/testkit": {
    dir: "testkit",
    runtime: ["@cursor/run", "@cursor/fake-provider"],
    dev: [],
    testTooling: true,
  },
  "@cursor/wire": {
    dir: "wire",
    runtime: ["@cursor/run", "@cursor/request", "@cursor/checkpoint", "@cursor/projection"],
    dev: [],
  },
  "@cursor/server": {
    dir: "server",
    runtime: [
      "@cursor/run",
      "@cursor/request",
      "@cursor/checkpoint",
      "@cursor/projection",
      "@cursor/wire",
      "@cursor/provider-openai-responses",
      "@cursor/provider-openai-chat",
      "@cursor/provider-anthropic",
      "@cursor/fake-provider",
    ],
    dev: ["@cursor/testkit"],
  },
};

// Private workspace packages (benchmarks, tooling) that may use every layer but that no layer may use.
export const leaves = ["@cursor/bench"];

// Test tooling: only a `testTooling` layer may list these in dependencies or peerDependencies,
// so that installing the gateway never installs a test runner or a property-testing library.
export const testToolingPackages = ["vitest", "fast-check", "@vitest/*"];
