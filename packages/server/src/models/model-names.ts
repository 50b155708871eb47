// The provider and effort names, apart from `ModelConfig`, so provider options can use them
// without an import cycle.
export const providerNames = ["openai-responses", "openai-chat", "anthropic", "simulated"] as const;
export type ProviderName = (typeof providerNames)[number];

/** Reasoning effort of a model entry, mapped to each provider package's own setting. */
export const modelEfforts = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ModelEffort = (typeof modelEfforts)[number];
