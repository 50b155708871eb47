import {
  assertOnePromptCacheSetting,
  promptCacheKeyDigest,
  toWirePromptCacheOptions,
  toWirePromptCacheRetention,
} from "@cursor/run";
import type { PromptCacheOptions, PromptCacheRetention } from "@cursor/run";
import type {
  OpenAIResponsesWirePromptCacheOptions,
  OpenAIResponsesWirePromptCacheRetention,
} from "./openai-responses-api.js";

/** How long OpenAI keeps cached prefixes: `in-memory` (minutes, the default) or `24h`. */
export type OpenAIResponsesPromptCacheRetention = PromptCacheRetention;

/** The cache options of newer models (`prompt_cache_options`), as the adapter takes them. */
export type OpenAIResponsesPromptCacheOptions = PromptCacheOptions;

/**
 * One caching setting per adapter: `prompt_cache_retention` or `prompt_cache_options`, never
 * both (see `assertOnePromptCacheSetting` in `@cursor/run`).
 */
export const assertOneCacheSetting: (settings: {
  readonly promptCacheRetention?: OpenAIResponsesPromptCacheRetention | undefined;
  readonly promptCacheOptions?: OpenAIResponsesPromptCacheOptions | undefined;
}) => void = assertOnePromptCacheSetting;

/** The wire form of the options, keys in a fixed order, only those set. */
export const toOpenAIResponsesWirePromptCacheOptions: (
  options: OpenAIResponsesPromptCacheOptions,
) => OpenAIResponsesWirePromptCacheOptions = toWirePromptCacheOptions;

/** The wire spelling of the retention policy (`in_memory`, `24h`). */
export const toOpenAIResponsesWirePromptCacheRetention: (
  retention: OpenAIResponsesPromptCacheRetention,
) => OpenAIResponsesWirePromptCacheRetention = toWirePromptCacheRetention;

/**
 * The `prompt_cache_key` of a conversation (scoped by the request's `cacheScope`, hashed: see
 * `promptCacheKeyDigest`): `conv_` and 40 hex characters, within the API's length limit. The
 * digest's input is spelt as it always was here (`openai-responses`, NUL-separated), so existing
 * conversations keep their caches; a key should stay under ~15 requests a minute, which one key
 * per conversation does.
 */
export function openAIResponsesPromptCacheKey({
  conversationId,
  cacheScope,
}: {
  conversationId: string;
  cacheScope?: string | undefined;
}): string {
  const digest = promptCacheKeyDigest({
    namespace: "openai-responses",
    separator: "\u0000",
    conversationId,
    cacheScope,
  });
  return `conv_${digest.slice(0, 40)}`;
}
