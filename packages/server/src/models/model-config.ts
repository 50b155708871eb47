export const providerNames = ["openai-responses", "openai-chat", "anthropic", "simulated"] as const;
export type ProviderName = (typeof providerNames)[number];

/** Reasoning effort of a model entry, mapped to each provider package's own setting. */
export const modelEfforts = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ModelEffort = (typeof modelEfforts)[number];

/** Provider settings of a model entry beyond key, endpoint and effort (each provider's own). */
export interface ProviderOptions {
  /** OpenAI Responses and Chat: `prompt_cache_retention` (models before GPT-5.6). */
  readonly promptCacheRetention?: "in-memory" | "24h";
  /** OpenAI Responses and Chat: `prompt_cache_options` (GPT-5.6 and later). */
  readonly promptCacheOptions?: {
    readonly mode?: "implicit" | "explicit";
    readonly ttl?: "30m";
  };
  /** Anthropic: TTL of the cache markers on the tools and the system prompt. */
  readonly stablePrefixCacheTtl?: "5m" | "1h";
  /** Anthropic: extended thinking on or off; its budget comes from the entry's `effort`. */
  readonly thinking?: boolean;
}

/** One configured BYOK model (an entry of the models file, or the single-provider variables). */
export interface ModelConfig extends ProviderOptions {
  /** What clients pick it by (a request's `model`, the Cursor picker's id). */
  readonly id: string;
  readonly displayName: string;
  readonly provider: ProviderName;
  /** The model id sent to the provider. */
  readonly model: string;
  /** The key, read from the environment variable the entry names; never logged or stored. */
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly effort?: ModelEffort;
}

/** The provider model id used when the single-provider variables name none. */
export const defaultProviderModels: Record<ProviderName, string> = {
  "openai-responses": "gpt-5",
  "openai-chat": "gpt-5",
  anthropic: "claude-sonnet-4-6",
  simulated: "simulated-model",
};
