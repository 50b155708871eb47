import { describe, expect, it } from "vitest";
import {
  imageRejectingAdapter,
  markerHappyAdapter,
  mutatingAdapter,
  nonDeterministicAdapter,
  rewritingAdapter,
  toolFilteringAdapter,
  toyAdapter,
} from "./__fixtures__/toy-adapters.js";
import type { ToyBody } from "./__fixtures__/toy-adapters.js";
import { describeProviderConformance } from "./describe-provider-conformance.js";
import { createConformanceLaws } from "./provider-conformance-laws.js";
import type { ProviderConformanceOptions } from "./provider-conformance-laws.js";
import { ConformanceViolationError } from "./testkit-errors.js";
import type { ProviderAdapter } from "@cursor/run";

const options = (adapter: ProviderAdapter<ToyBody>): ProviderConformanceOptions<ToyBody> => ({
  adapter,
  historyItems: (body) => body.input,
  staticParts: (body) => ({ instructions: body.instructions, tools: body.tools }),
  stripCacheMarkers: (body) => ({
    ...body,
    input: body.input.map(({ cache_control: _marker, ...rest }) => rest),
  }),
  maxCacheMarkers: 4,
  replayState: ({ reasoning, messageId }) => ({ id: messageId, summary: reasoning.slice(0, 10) }),
  numRuns: 25,
});

/** Runs the named law and returns the violation it raised (or undefined). */
function violation(
  adapter: ProviderAdapter<ToyBody>,
  lawPrefix: string,
): ConformanceViolationError | undefined {
  const law = createConformanceLaws(options(adapter)).find((l) => l.name.startsWith(lawPrefix));
  if (law === undefined) throw new Error(`no law ${lawPrefix}`);
  try {
    law.check();
    return undefined;
  } catch (error) {
    // fast-check wraps the failure; the violation is its cause.
    let current: unknown = error;
    while (current instanceof Error && !ConformanceViolationError.isInstance(current))
      current = current.cause;
    if (ConformanceViolationError.isInstance(current)) return current;
    throw error;
  }
}

describeProviderConformance(options(toyAdapter()));

describe("conformance laws catch broken adapters", () => {
  it("names the first diverging path when history is rewritten", () => {
    const found = violation(rewritingAdapter(), "keeps history append-only");
    expect(found?.law).toBe("prefix");
    expect(found?.path).toBe("input[0].content[0].text");
    expect(found?.message).toMatch(/first diverging path input\[0\]\.content\[0\]\.text \(value\)/);
  });

  it("flags tools that change with the mode", () => {
    const found = violation(toolFilteringAdapter(), "keeps instructions and tools");
    expect(found?.law).toBe("stable spec");
    expect(found?.path).toMatch(/^tools\[\d+\]/);
  });

  it("flags non-deterministic bytes", () => {
    const found = violation(nonDeterministicAdapter(), "serialises deterministically");
    expect(found).toMatchObject({ law: "deterministic bytes", path: "model" });
  });

  it("flags input mutation", () => {
    const found = violation(mutatingAdapter(), "never mutates");
    expect(found?.law).toBe("no input mutation");
    expect(found?.message).toMatch(/threw on a deep-frozen request/);
  });

  it("flags too many cache markers", () => {
    expect(violation(markerHappyAdapter(), "never sends more than 4")?.law).toBe(
      "cache-marker limit",
    );
  });

  it("flags a content kind the adapter cannot take", () => {
    const found = violation(imageRejectingAdapter(), "accepts every canonical content kind");
    expect(found?.message).toMatch(/threw on .*tool result images are not supported/);
  });
});
