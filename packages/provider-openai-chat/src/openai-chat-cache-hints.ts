import { sha256Hex } from "@cursor/run";
import type { ChatPromptCacheRetention } from "./openai-chat-api.js";

/** The retention option as the adapter takes it (the spelling used across these packages). */
export type OpenAIChatPromptCacheRetention = "in-memory" | "24h";

/**
 * `prompt_cache_key`: one key per conversation, so OpenAI routes a conversation's requests to
 * the same cache without pooling every conversation under one hot key. A hash rather than the
 * id itself, so conversation ids never leave the gateway; 32 hex characters stay well under the
 * API's key length limit.
 */
export function openAIChatPromptCacheKey(conversationId: string): string {
  return sha256Hex(`openai-chat:${conversationId}`).slice(0, 32);
}

/** The wire spelling of the retention policy (`in_memory`, `24h`). */
export function toChatPromptCacheRetention(
  retention: OpenAIChatPromptCacheRetention,
): ChatPromptCacheRetention {
  switch (retention) {
    case "in-memory":
      return "in_memory";
    case "24h":
      return "24h";
    default: {
      const exhaustive: never = retention;
      throw new TypeError(`unknown prompt cache retention ${String(exhaustive)}`);
    }
  }
}
