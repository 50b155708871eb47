import { sha256Hex } from "@cursor/run";
import type { ResponsesPromptCacheRetention } from "./responses-api.js";

/** How long OpenAI keeps cached prefixes: `in-memory` (minutes, the default) or `24h`. */
export type PromptCacheRetention = "in-memory" | "24h";

/**
 * The `prompt_cache_key` of a conversation. OpenAI routes requests with the same key and prefix
 * to the same cache, so one key per conversation keeps its turns together without piling every
 * conversation onto one key (a key should stay under ~15 requests a minute). Hashed so that the
 * conversation id never leaves the gateway and the key stays within the API's length limit.
 */
export function responsesPromptCacheKey(conversationId: string): string {
  return `conv_${sha256Hex(`openai-responses\u0000${conversationId}`).slice(0, 40)}`;
}

export function responsesPromptCacheRetention(
  retention: PromptCacheRetention,
): ResponsesPromptCacheRetention {
  switch (retention) {
    case "in-memory":
      return "in_memory";
    case "24h":
      return "24h";
    default: {
      const exhaustive: never = retention;
      throw new Error(`unknown prompt cache retention ${JSON.stringify(exhaustive)}`);
    }
  }
}
