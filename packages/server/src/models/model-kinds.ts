/** The provider kinds and reasoning efforts a model entry can name (no imports: provider options and model config both build on these). */
export const providerNames = ["openai-responses", "openai-chat", "anthropic", "simulated"] as const;
export type ProviderName = (typeof providerNames)[number];

/** Reasoning effort of a model entry, mapped to each provider package's own setting. */
export const modelEfforts = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ModelEffort = (typeof modelEfforts)[number];
