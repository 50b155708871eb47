export { createAnthropicAdapter, defaultAnthropicMaxTokens } from "./anthropic-adapter.js";
export type { AnthropicAdapterOptions } from "./anthropic-adapter.js";
export type { AnthropicBody, AnthropicCacheTtl } from "./anthropic-api.js";
