/**
 * `@cursor/provider-openai-responses/internal`: the pieces the adapter is built from (serialiser,
 * converters, tools, cache key, call ids, replay state, stream conversion, error classification,
 * wire types), for this repository's tests, benchmarks and tools. Not a stable API: it may change
 * in any release. Applications use the root entry (`createOpenAIResponsesAdapter`).
 */
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
  OpenAIResponsesReasoningItem,
  OpenAIResponsesReasoningSummaryText,
  OpenAIResponsesToolChoice,
  OpenAIResponsesUserMessageItem,
} from "./openai-responses-api.js";
