export { canonicalJson, canonicalizeJsonValue, deepFreeze, sha256Hex } from "./canonical-json.js";
export { recentCanonicalJson } from "./recent-canonical-json.js";
export { holdItems, pushHeldItems } from "./held-items.js";
export { JsonBodyStream, jsonChunks } from "./json-body.js";
export type { HeldItems } from "./held-items.js";
export { SequenceMemo } from "./sequence-memo.js";
export { PositionIndex } from "./position-index.js";
export { canonicalMessageSchema } from "./canonical-message.js";
export type {
  AssistantMessage,
  CanonicalMessage,
  CanonicalMessageKind,
  ContentPart,
  ImagePart,
  JsonObject,
  JsonValue,
  Origin,
  RequestContextMessage,
  Role,
  RuntimeKind,
  RuntimeMessage,
  SummaryMessage,
  TextPart,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "./canonical-message.js";
export {
  AuthenticationError,
  ContextOverflowError,
  CursorError,
  HistoryConflictError,
  InvalidHistoryError,
  InvalidRequestError,
  NetworkError,
  ProviderError,
  ProviderServerError,
  QuotaExceededError,
  RateLimitError,
  RefusalError,
  RunCancelledError,
} from "./errors.js";
export type { ProviderErrorKind } from "./errors.js";
export {
  HistoryLog,
  chainHeadDigest,
  decodeCanonicalMessage,
  emptyHeadDigest,
  knownMessageDigest,
  messageDigest,
} from "./history-log.js";
export type { AppendResult, PendingToolCall } from "./history-log.js";
export {
  assistantMessageId,
  backgroundCompletionEventId,
  injectionEventId,
  messageIdPrefixes,
  requestContextEventId,
  requestContextMessageId,
  runtimeMessageId,
  shortDigest,
  summaryMessageId,
  toolResultMessageId,
  toolRoundId,
  userMessageId,
  userTurnEventId,
} from "./message-ids.js";
export type {
  ModelAssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelToolMessage,
  ModelUserMessage,
  ModelUserSource,
} from "./model-request.js";
export { createPromptSpec } from "./prompt-spec.js";
export type { PromptSpec, PromptSpecInput, ToolSpec } from "./prompt-spec.js";
export type {
  FinishReason,
  ProviderAdapter,
  ProviderEvent,
  SerializedRequest,
  StreamOptions,
  Usage,
  Warning,
} from "./provider-adapter.js";
export {
  defaultMaxToolResultChars,
  defaultUserTailText,
  toModelRequest,
} from "./to-model-request.js";
export type { ToModelRequestOptions } from "./to-model-request.js";
export { truncateToolResult } from "./truncate-tool-result.js";
export {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  createUserMessage,
} from "./message-builders.js";
export { compactHistory, createCompactor } from "./compact-history.js";
export type {
  CompactionRequest,
  CompactionResult,
  CompactionTrigger,
  CompactorConfig,
  PersistEpoch,
} from "./compact-history.js";
export { compactionReplacement, partitionHistory } from "./compaction-partition.js";
export type { CompactionPartition } from "./compaction-partition.js";
export {
  defaultFallbackSummaryChars,
  defaultFallbackSummaryHeader,
  fallbackSummary,
} from "./fallback-summary.js";
export { describeLoopError } from "./loop-error.js";
export type { LoopError } from "./loop-error.js";
export { runModelLoop } from "./model-loop.js";
export type {
  CommitBatch,
  CommitPort,
  ModelLoopCompaction,
  ModelLoopEvent,
  ModelLoopOptions,
  ModelLoopOutcome,
} from "./model-loop-types.js";
export { defaultRetryPolicy, systemClock } from "./retry-policy.js";
export type { Clock, RetryPolicy } from "./retry-policy.js";
export { nextAssistantStep } from "./run-state.js";
export {
  buildSummarizerRequest,
  defaultSummarizerInputTokens,
  summarizerInputMessageId,
} from "./summarizer-request.js";
export type { SummarizerRequestOptions } from "./summarizer-request.js";
export {
  contextBudget,
  defaultReserveTokens,
  estimateRequestTokens,
  tokenAnchorFor,
} from "./token-estimate.js";
export type { TokenAnchor } from "./token-estimate.js";
export { classifyProviderFailure, toProviderError } from "./provider-error-classifier.js";
export type {
  ProviderErrorRules,
  ProviderFailureDetails,
  UnwrappedProviderError,
} from "./provider-error-classifier.js";
export { parseRetryAfterMs } from "./retry-after.js";
export type { HeaderSource } from "./retry-after.js";
export {
  assertOnePromptCacheSetting,
  promptCacheKeyDigest,
  toWirePromptCacheOptions,
  toWirePromptCacheRetention,
} from "./prompt-cache-hints.js";
export type { PromptCacheOptions, PromptCacheRetention } from "./prompt-cache-hints.js";
