import { sha256Hex } from "./canonical-json.js";

/*
 * The prompt-cache settings both OpenAI APIs (Responses and Chat Completions) take, shared by
 * their provider packages; each package keeps its own key format and public names.
 */

/** How long cached prefixes are kept, as adapters take it: `in-memory` (minutes) or `24h`. */
export type PromptCacheRetention = "in-memory" | "24h";

/** `prompt_cache_options` (GPT-5.6 and later), as adapters take it. */
export interface PromptCacheOptions {
  readonly mode?: "implicit" | "explicit";
  readonly ttl?: "30m";
}

/**
 * One caching setting per adapter: `prompt_cache_retention` (older models; deprecated by
 * OpenAI) or `prompt_cache_options` (GPT-5.6 and later). The API treats them as independent, so
 * sending both would make the cache lifetime depend on two settings; it is refused instead.
 */
export function assertOnePromptCacheSetting(settings: {
  readonly promptCacheRetention?: PromptCacheRetention | undefined;
  readonly promptCacheOptions?: PromptCacheOptions | undefined;
}): void {
  if (settings.promptCacheRetention !== undefined && settings.promptCacheOptions !== undefined) {
    throw new TypeError(
      "promptCacheRetention and promptCacheOptions cannot both be set: use promptCacheOptions for GPT-5.6 and later, promptCacheRetention for older models",
    );
  }
}

/** The wire spelling of the retention policy (the API spells the in-memory one `in_memory`). */
export function toWirePromptCacheRetention(retention: PromptCacheRetention): "in_memory" | "24h" {
  switch (retention) {
    case "in-memory":
      return "in_memory";
    case "24h":
      return "24h";
    default: {
      const exhaustive: never = retention;
      throw new TypeError(`unknown prompt cache retention ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** The wire form of the options: keys in a fixed order, only those set (a stable body). */
export function toWirePromptCacheOptions(options: PromptCacheOptions): {
  mode?: "implicit" | "explicit";
  ttl?: "30m";
} {
  return {
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
  };
}

/**
 * The SHA-256 (hex) a conversation's prompt cache key is cut from. One key per conversation keeps
 * its turns on one cache without piling every conversation onto one hot key; the request's
 * `cacheScope` (a gateway's tenant) goes in too, so two scopes' conversations with the same id
 * never share a key. Hashed, so neither the id nor the scope leaves the gateway. The scoped form
 * encodes the pair as JSON, so moving text between scope and id gives another digest.
 *
 * `namespace` keeps one provider's keys apart from another's; `separator` joins the parts. A
 * provider keeps the spelling its keys were first derived with: a different one would move every
 * existing conversation to a cold cache.
 */
export function promptCacheKeyDigest({
  namespace,
  separator,
  conversationId,
  cacheScope,
}: {
  namespace: string;
  separator: string;
  conversationId: string;
  cacheScope?: string | undefined;
}): string {
  const parts =
    cacheScope === undefined
      ? [namespace, conversationId]
      : [namespace, "scoped", JSON.stringify([cacheScope, conversationId])];
  const text = parts.join(separator);
  // Asked on every model call of a conversation, always with the same answer: the last few
  // thousand are kept (a bounded map, oldest out first) instead of hashing each time.
  let digest = cacheKeyDigests.get(text);
  if (digest === undefined) {
    digest = sha256Hex(text);
    if (cacheKeyDigests.size >= maxCacheKeyDigests) {
      cacheKeyDigests.delete(cacheKeyDigests.keys().next().value!);
    }
    cacheKeyDigests.set(text, digest);
  }
  return digest;
}

const cacheKeyDigests = new Map<string, string>();
const maxCacheKeyDigests = 4096;
