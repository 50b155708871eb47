// The vitest entry (`@cursor/testkit/vitest`): registers the conformance laws as a vitest suite.
export { describeProviderConformance } from "./describe-provider-conformance.js";
export type { ConformanceLaw, ProviderConformanceOptions } from "./provider-conformance-laws.js";
