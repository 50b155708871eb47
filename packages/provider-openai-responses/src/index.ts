export { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";
export type { OpenAIResponsesAdapterOptions } from "./openai-responses-adapter.js";
export type {
  OpenAIResponsesBody,
  OpenAIResponsesReasoningEffort,
  OpenAIResponsesReasoningSummary,
} from "./openai-responses-api.js";
export type {
  OpenAIResponsesPromptCacheOptions,
  OpenAIResponsesPromptCacheRetention,
} from "./openai-responses-cache-hints.js";
