import { describe, expect, it } from "vitest";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert-anthropic-usage.js";

describe("convertAnthropicUsage", () => {
  it("sums the three non-overlapping input counts", () => {
    expect(
      convertAnthropicUsage({
        input_tokens: 50,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 300,
        output_tokens: 20,
      }),
    ).toEqual({
      inputTokens: 1350,
      cachedInputTokens: 1000,
      cacheWriteTokens: 300,
      outputTokens: 20,
    });
  });

  it("counts missing or null fields as zero", () => {
    expect(convertAnthropicUsage({})).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
    });
    expect(
      convertAnthropicUsage({
        input_tokens: 7,
        cache_read_input_tokens: null,
        output_tokens: null,
      }),
    ).toEqual({ inputTokens: 7, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0 });
  });
});

describe("mergeAnthropicUsage", () => {
  it("lets fields present in the later report win", () => {
    expect(
      mergeAnthropicUsage(
        { input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 1 },
        { output_tokens: 40, cache_read_input_tokens: null },
      ),
    ).toEqual({
      input_tokens: 5,
      output_tokens: 40,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: undefined,
    });
    expect(mergeAnthropicUsage({ input_tokens: 5 }, undefined)).toEqual({ input_tokens: 5 });
  });
});
