/** Where a price comes from and as of when (shown wherever a cost is shown). */
export interface PriceSource {
  readonly source: string;
  readonly asOf: string;
}

/**
 * `openai` prices both OpenAI APIs (`openai-responses`, `openai-chat`); a catalog provider name
 * prices that provider only (an OpenAI-compatible server behind `openai-chat`, the simulated one).
 */
export const priceProviders = [
  "openai",
  "openai-responses",
  "openai-chat",
  "anthropic",
  "simulated",
] as const;
type PriceProvider = (typeof priceProviders)[number];

/** A model's prices in USD per million tokens. */
export interface PriceEntry {
  readonly provider: PriceProvider;
  /** The provider model id, or a prefix ending in `*` (`*` alone: every model). */
  readonly model: string;
  readonly input: number;
  readonly cachedInput: number;
  /** A cache write with the default (5-minute) lifetime. */
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
  readonly note?: string;
  readonly source: PriceSource;
}
