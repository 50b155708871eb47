import { describe, it } from "vitest";
import { createConformanceLaws } from "./provider-conformance-laws.js";
import type { ProviderConformanceOptions } from "./provider-conformance-laws.js";

/**
 * Registers the conformance suite of a provider adapter as a vitest `describe`: deterministic
 * bytes, no input mutation, the prefix law over generated append-only conversations, static parts
 * unchanged as history grows, the cache-marker limit (when given) and every canonical content
 * kind. A failure names the first diverging path in the body (e.g. `input[41].content[0].text`).
 */
export function describeProviderConformance<Body>(options: ProviderConformanceOptions<Body>): void {
  const laws = createConformanceLaws(options);
  describe(options.name ?? `${options.adapter.id} conformance`, () => {
    for (const law of laws) it(law.name, law.check);
  });
}
