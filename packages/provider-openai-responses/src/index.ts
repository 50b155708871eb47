export { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";
export type { OpenAIResponsesAdapterOptions } from "./openai-responses-adapter.js";
export { serializeOpenAIResponsesRequest } from "./serialize-openai-responses-request.js";
export type { OpenAIResponsesSerializeSettings } from "./serialize-openai-responses-request.js";
export { convertToOpenAIResponsesInput } from "./convert-to-openai-responses-input.js";
export { convertOpenAIResponsesStream } from "./convert-openai-responses-stream.js";
export { convertOpenAIResponsesUsage } from "./convert-openai-responses-usage.js";
export { mapOpenAIResponsesFinishReason } from "./map-openai-responses-finish-reason.js";
export { prepareOpenAIResponsesTools } from "./openai-responses-prepare-tools.js";
export type { PrepareOpenAIResponsesToolsResult } from "./openai-responses-prepare-tools.js";
export { isStrictCompatibleSchema } from "./openai-responses-strict-schema.js";
export {
  openAIResponsesPromptCacheKey,
  toOpenAIResponsesWirePromptCacheOptions,
  toOpenAIResponsesWirePromptCacheRetention,
} from "./openai-responses-cache-hints.js";
export type {
  OpenAIResponsesPromptCacheOptions,
  OpenAIResponsesPromptCacheRetention,
} from "./openai-responses-cache-hints.js";
export {
  maxOpenAIResponsesToolCallIdLength,
  toOpenAIResponsesToolCallId,
} from "./openai-responses-tool-call-id.js";
export {
  createOpenAIResponsesReplayState,
  readOpenAIResponsesReplayState,
} from "./openai-responses-replay-state.js";
export type {
  ReadOpenAIResponsesReplayStateResult,
  OpenAIResponsesReplayItem,
} from "./openai-responses-replay-state.js";
export {
  classifyOpenAIResponsesStreamError,
  openAIResponsesErrorRules,
  toOpenAIResponsesProviderError,
} from "./openai-responses-errors.js";
export { openAIResponsesProviderId } from "./openai-responses-provider-id.js";
export type {
  OpenAIResponsesAllowedToolsChoice,
  OpenAIResponsesAssistantMessageItem,
  OpenAIResponsesBody,
  OpenAIResponsesFunctionCallItem,
  OpenAIResponsesFunctionCallOutputItem,
  OpenAIResponsesFunctionTool,
  OpenAIResponsesInputContentPart,
  OpenAIResponsesInputImage,
  OpenAIResponsesInputItem,
  OpenAIResponsesInputText,
  OpenAIResponsesMessagePhase,
  OpenAIResponsesWirePromptCacheOptions,
  OpenAIResponsesWirePromptCacheRetention,
  OpenAIResponsesReasoningConfig,
  OpenAIResponsesReasoningEffort,
  OpenAIResponsesReasoningItem,
  OpenAIResponsesReasoningSummary,
  OpenAIResponsesReasoningSummaryText,
  OpenAIResponsesToolChoice,
  OpenAIResponsesUserMessageItem,
} from "./openai-responses-api.js";
