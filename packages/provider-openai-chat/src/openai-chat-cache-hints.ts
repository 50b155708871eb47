import { sha256Hex } from "@cursor/run";
import type {
  OpenAIChatWirePromptCacheOptions,
  OpenAIChatWirePromptCacheRetention,
} from "./openai-chat-api.js";

/** The retention option as the adapter takes it (the spelling used across these packages). */
export type OpenAIChatPromptCacheRetention = "in-memory" | "24h";

/** `prompt_cache_options` as the adapter takes it (GPT-5.6 and later). */
export interface OpenAIChatPromptCacheOptions {
  readonly mode?: "implicit" | "explicit";
  readonly ttl?: "30m";
}

/**
 * One caching setting per adapter: `prompt_cache_retention` (older models; deprecated by
 * OpenAI) or `prompt_cache_options` (GPT-5.6 and later). The API treats them as independent, so
 * sending both would make the cache lifetime depend on two settings; it is refused instead.
 */
export function assertOneChatCacheSetting(settings: {
  readonly promptCacheRetention?: OpenAIChatPromptCacheRetention | undefined;
  readonly promptCacheOptions?: OpenAIChatPromptCacheOptions | undefined;
}): void {
  if (settings.promptCacheRetention !== undefined && settings.promptCacheOptions !== undefined) {
    throw new TypeError(
      "promptCacheRetention and promptCacheOptions cannot both be set: use promptCacheOptions for GPT-5.6 and later, promptCacheRetention for older models",
    );
  }
}

/** The wire form of the options, keys in a fixed order, only those set. */
export function toChatPromptCacheOptions(
  options: OpenAIChatPromptCacheOptions,
): OpenAIChatWirePromptCacheOptions {
  return {
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
  };
}

/**
 * `prompt_cache_key`: one key per conversation, so OpenAI routes a conversation's requests to
 * the same cache without pooling every conversation under one hot key, and per `cacheScope` (a
 * gateway's tenant), so two tenants' conversations with the same id never share one. A hash
 * rather than the id and scope themselves, so neither leaves the gateway; 32 hex characters stay
 * well under the API's key length limit.
 */
export function openAIChatPromptCacheKey({
  conversationId,
  cacheScope,
}: {
  conversationId: string;
  cacheScope?: string | undefined;
}): string {
  const source =
    cacheScope === undefined
      ? `openai-chat:${conversationId}`
      : `openai-chat:scoped:${JSON.stringify([cacheScope, conversationId])}`;
  return sha256Hex(source).slice(0, 32);
}

/** The wire spelling of the retention policy (`in_memory`, `24h`). */
export function toChatPromptCacheRetention(
  retention: OpenAIChatPromptCacheRetention,
): OpenAIChatWirePromptCacheRetention {
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
