import type { Usage } from "@cursor/run";
import type { OpenAIResponsesUsage } from "./openai-responses-api.js";

/**
 * Responses usage as `Usage`. `input_tokens` already includes cached and cache-write tokens,
 * as `Usage.inputTokens` expects. OpenAI-compatible servers often omit the details (or all of
 * usage): a missing count is zero, never an error.
 */
export function convertOpenAIResponsesUsage(usage: OpenAIResponsesUsage | null | undefined): Usage {
  return {
    inputTokens: usage?.input_tokens ?? 0,
    cachedInputTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: usage?.input_tokens_details?.cache_write_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
  };
}
