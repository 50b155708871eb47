import { describe, expect, it } from "vitest";
import { convertOpenAIResponsesUsage } from "./convert-openai-responses-usage.js";

describe("convertOpenAIResponsesUsage", () => {
  it("reads input, cached, cache-write and output tokens", () => {
    expect(
      convertOpenAIResponsesUsage({
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
    expect(convertOpenAIResponsesUsage(undefined)).toEqual(zero);
    expect(convertOpenAIResponsesUsage(null)).toEqual(zero);
    expect(convertOpenAIResponsesUsage({ input_tokens: 5, input_tokens_details: null })).toEqual({
      ...zero,
      inputTokens: 5,
    });
  });
});
