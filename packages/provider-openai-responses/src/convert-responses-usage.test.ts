import { describe, expect, it } from "vitest";
import { convertResponsesUsage } from "./convert-responses-usage.js";

describe("convertResponsesUsage", () => {
  it("reads input, cached, cache-write and output tokens", () => {
    expect(
      convertResponsesUsage({
        input_tokens: 2048,
        input_tokens_details: { cached_tokens: 1920, cache_write_tokens: 64 },
        output_tokens: 12,
      }),
    ).toEqual({
      inputTokens: 2048,
      cachedInputTokens: 1920,
      cacheWriteTokens: 64,
      outputTokens: 12,
    });
  });

  it("counts missing fields as zero", () => {
    const zero = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
    expect(convertResponsesUsage(undefined)).toEqual(zero);
    expect(convertResponsesUsage(null)).toEqual(zero);
    expect(convertResponsesUsage({ input_tokens: 5, input_tokens_details: null })).toEqual({
      ...zero,
      inputTokens: 5,
    });
  });
});
