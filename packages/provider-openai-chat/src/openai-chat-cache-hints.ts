import {
  assertOnePromptCacheSetting,
  promptCacheKeyDigest,
  toWirePromptCacheOptions,
  toWirePromptCacheRetention,
} from "@cursor/run";
import type { PromptCacheOptions, PromptCacheRetention } from "@cursor/run";
import type {
  OpenAIChatWirePromptCacheOptions,
  OpenAIChatWirePromptCacheRetention,
} from "./openai-chat-api.js";

/** The retention option as the adapter takes it (the spelling used across these packages). */
export type OpenAIChatPromptCacheRetention = PromptCacheRetention;

/** `prompt_cache_options` as the adapter takes it (GPT-5.6 and later). */
export type OpenAIChatPromptCacheOptions = PromptCacheOptions;

/**
 * One caching setting per adapter: `prompt_cache_retention` or `prompt_cache_options`, never
 * both (see `assertOnePromptCacheSetting` in `@cursor/run`).
 */
export const assertOneChatCacheSetting: (settings: {
  readonly promptCacheRetention?: OpenAIChatPromptCacheRetention | undefined;
  readonly promptCacheOptions?: OpenAIChatPromptCacheOptions | undefined;
}) => void = assertOnePromptCacheSetting;

/** The wire form of the options, keys in a fixed order, only those set. */
export const toChatPromptCacheOptions: (
  options: OpenAIChatPromptCacheOptions,
) => OpenAIChatWirePromptCacheOptions = toWirePromptCacheOptions;

/** The wire spelling of the retention policy (`in_memory`, `24h`). */
export const toChatPromptCacheRetention: (
  retention: OpenAIChatPromptCacheRetention,
) => OpenAIChatWirePromptCacheRetention = toWirePromptCacheRetention;

/**
 * `prompt_cache_key`: one per conversation and `cacheScope`, hashed (see `promptCacheKeyDigest`);
 * 32 hex characters stay well under the API's key length limit. The digest's input is spelt as it
 * always was here (`openai-chat`, colon-separated), so existing conversations keep their caches.
 */
export function openAIChatPromptCacheKey({
  conversationId,
  cacheScope,
}: {
  conversationId: string;
  cacheScope?: string | undefined;
}): string {
  return promptCacheKeyDigest({
    namespace: "openai-chat",
    separator: ":",
    conversationId,
    cacheScope,
  }).slice(0, 32);
}
