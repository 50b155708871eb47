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

  it("reads the 5-minute / 1-hour split of cache writes", () => {
    expect(
      convertAnthropicUsage({
        input_tokens: 10,
        cache_read_input_tokens: 2000,
        cache_creation_input_tokens: 500,
        cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 },
        output_tokens: 4,
      }),
    ).toEqual({
      inputTokens: 2510,
      cachedInputTokens: 2000,
      cacheWriteTokens: 500,
      cacheWrite1hTokens: 300,
      outputTokens: 4,
    });
    // Only the split reported (a compatible server): the writes are its sum.
    expect(
      convertAnthropicUsage({
        input_tokens: 1,
        cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 0 },
      }),
    ).toEqual({ inputTokens: 21, cachedInputTokens: 0, cacheWriteTokens: 20, outputTokens: 0 });
  });

  it("keeps the split across message_start and message_delta", () => {
    const merged = mergeAnthropicUsage(
      {
        input_tokens: 10,
        cache_creation_input_tokens: 300,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 300 },
      },
      { output_tokens: 9 },
    );
    expect(convertAnthropicUsage(merged)).toEqual({
      inputTokens: 310,
      cachedInputTokens: 0,
      cacheWriteTokens: 300,
      cacheWrite1hTokens: 300,
      outputTokens: 9,
    });
  });
});
