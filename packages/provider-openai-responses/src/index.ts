export { createOpenAIResponsesAdapter } from "./responses-adapter.js";
export type { OpenAIResponsesAdapterOptions } from "./responses-adapter.js";
export { serializeResponsesRequest } from "./serialize-responses-request.js";
export type { ResponsesSerializeSettings } from "./serialize-responses-request.js";
export { convertToResponsesInput } from "./convert-to-responses-input.js";
export { convertResponsesStream } from "./convert-responses-stream.js";
export { convertResponsesUsage } from "./convert-responses-usage.js";
export { mapResponsesFinishReason } from "./map-responses-finish-reason.js";
export { prepareResponsesTools } from "./responses-prepare-tools.js";
export type { PreparedResponsesTools } from "./responses-prepare-tools.js";
export { isStrictCompatibleSchema } from "./responses-strict-schema.js";
export {
  responsesPromptCacheKey,
  responsesPromptCacheOptions,
  responsesPromptCacheRetention,
} from "./responses-cache-hints.js";
export type { PromptCacheOptions, PromptCacheRetention } from "./responses-cache-hints.js";
export { maxResponsesCallIdLength, toResponsesCallId } from "./responses-call-id.js";
export { createResponsesReplayState, readResponsesReplayState } from "./responses-replay-state.js";
export type { ReadReplayStateResult, ResponsesReplayItem } from "./responses-replay-state.js";
export {
  classifyResponsesStreamError,
  responsesErrorRules,
  toResponsesError,
} from "./responses-errors.js";
export { responsesProviderId } from "./responses-provider-id.js";
export type {
  ResponsesAllowedToolsChoice,
  ResponsesAssistantMessageItem,
  ResponsesBody,
  ResponsesFunctionCallItem,
  ResponsesFunctionCallOutputItem,
  ResponsesFunctionTool,
  ResponsesInputContentPart,
  ResponsesInputImage,
  ResponsesInputItem,
  ResponsesInputText,
  ResponsesMessagePhase,
  ResponsesPromptCacheOptions,
  ResponsesPromptCacheRetention,
  ResponsesReasoningConfig,
  ResponsesReasoningEffort,
  ResponsesReasoningItem,
  ResponsesReasoningSummary,
  ResponsesReasoningSummaryText,
  ResponsesToolChoice,
  ResponsesUserMessageItem,
} from "./responses-api.js";
