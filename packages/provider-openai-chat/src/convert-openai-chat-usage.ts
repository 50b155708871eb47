import type { Usage } from "@cursor/run";
import type { OpenAIChatUsage } from "./openai-chat-api.js";

/**
 * Chat usage → canonical usage. OpenAI reports cached (and, on newer models, cache-write) tokens
 * in `prompt_tokens_details`, both included in `prompt_tokens`; DeepSeek-style servers report
 * `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` instead. Whatever a server leaves out
 * counts as zero, never as an error.
 */
export function convertOpenAIChatUsage(usage: OpenAIChatUsage | null | undefined): Usage {
  const hit = usage?.prompt_cache_hit_tokens ?? undefined;
  const miss = usage?.prompt_cache_miss_tokens ?? undefined;
  const details = usage?.prompt_tokens_details ?? undefined;
  const inputTokens =
    usage?.prompt_tokens ??
    (hit === undefined && miss === undefined ? 0 : (hit ?? 0) + (miss ?? 0));
  return {
    inputTokens,
    cachedInputTokens: details?.cached_tokens ?? hit ?? 0,
    cacheWriteTokens: details?.cache_write_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
  };
}
