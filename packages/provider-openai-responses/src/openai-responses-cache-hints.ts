import { sha256Hex } from "@cursor/run";
import type {
  OpenAIResponsesWirePromptCacheOptions,
  OpenAIResponsesWirePromptCacheRetention,
} from "./openai-responses-api.js";

/** How long OpenAI keeps cached prefixes: `in-memory` (minutes, the default) or `24h`. */
export type OpenAIResponsesPromptCacheRetention = "in-memory" | "24h";

/** The cache options of newer models (`prompt_cache_options`), as the adapter takes them. */
export interface OpenAIResponsesPromptCacheOptions {
  readonly mode?: "implicit" | "explicit";
  readonly ttl?: "30m";
}

/**
 * One caching setting per adapter: `prompt_cache_retention` (older models; deprecated by
 * OpenAI) or `prompt_cache_options` (GPT-5.6 and later). The API treats them as independent, so
 * sending both would make the cache lifetime depend on two settings; it is refused instead.
 */
export function assertOneCacheSetting(settings: {
  readonly promptCacheRetention?: OpenAIResponsesPromptCacheRetention | undefined;
  readonly promptCacheOptions?: OpenAIResponsesPromptCacheOptions | undefined;
}): void {
  if (settings.promptCacheRetention !== undefined && settings.promptCacheOptions !== undefined) {
    throw new TypeError(
      "promptCacheRetention and promptCacheOptions cannot both be set: use promptCacheOptions for GPT-5.6 and later, promptCacheRetention for older models",
    );
  }
}

/** The wire form of the options, keys in a fixed order, only those set. */
export function toOpenAIResponsesWirePromptCacheOptions(
  options: OpenAIResponsesPromptCacheOptions,
): OpenAIResponsesWirePromptCacheOptions {
  return {
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
  };
}

/**
 * The `prompt_cache_key` of a conversation. OpenAI routes requests with the same key and prefix
 * to the same cache, so one key per conversation keeps its turns together without piling every
 * conversation onto one key (a key should stay under ~15 requests a minute). The request's
 * `cacheScope` (a gateway's tenant) goes into the key too, so two tenants' conversations with the
 * same id never share one. Hashed so that neither the id nor the scope leaves the gateway and
 * the key stays within the API's length limit.
 */
export function openAIResponsesPromptCacheKey({
  conversationId,
  cacheScope,
}: {
  conversationId: string;
  cacheScope?: string | undefined;
}): string {
  const source =
    cacheScope === undefined
      ? `openai-responses\u0000${conversationId}`
      : `openai-responses\u0000scoped\u0000${JSON.stringify([cacheScope, conversationId])}`;
  return `conv_${sha256Hex(source).slice(0, 40)}`;
}

export function toOpenAIResponsesWirePromptCacheRetention(
  retention: OpenAIResponsesPromptCacheRetention,
): OpenAIResponsesWirePromptCacheRetention {
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
