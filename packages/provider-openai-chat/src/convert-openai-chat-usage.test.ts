import { describe, expect, it } from "vitest";
import { convertOpenAIChatUsage } from "./convert-openai-chat-usage.js";

describe("convertOpenAIChatUsage", () => {
  it("reads OpenAI usage with cached and cache-write tokens", () => {
    expect(
      convertOpenAIChatUsage({
        prompt_tokens: 2048,
        completion_tokens: 17,
        prompt_tokens_details: { cached_tokens: 1152, cache_write_tokens: 256, audio_tokens: 0 },
      }),
    ).toEqual({
      inputTokens: 2048,
      cachedInputTokens: 1152,
      cacheWriteTokens: 256,
      outputTokens: 17,
    });
  });

  it("counts missing fields as zero", () => {
    expect(convertOpenAIChatUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 2,
    });
    expect(convertOpenAIChatUsage(undefined)).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
    });
    expect(convertOpenAIChatUsage({ prompt_tokens_details: null })).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
    });
  });

  it("accepts DeepSeek-style prompt cache hit and miss tokens", () => {
    expect(
      convertOpenAIChatUsage({
        prompt_tokens: 300,
        completion_tokens: 5,
        prompt_cache_hit_tokens: 256,
        prompt_cache_miss_tokens: 44,
      }),
    ).toEqual({ inputTokens: 300, cachedInputTokens: 256, cacheWriteTokens: 0, outputTokens: 5 });
    expect(
      convertOpenAIChatUsage({ prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 }),
    ).toEqual({
      inputTokens: 100,
      cachedInputTokens: 64,
      cacheWriteTokens: 0,
      outputTokens: 0,
    });
  });
});
