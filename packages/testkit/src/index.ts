export const packageName = "@cursor/testkit";

export { startFakeProvider } from "./fake-provider.js";
export type {
  FakeProvider,
  FakeProviderCacheOptions,
  FakeProviderOptions,
  RecordedRequest,
  RequestCacheDiagnostics,
} from "./fake-provider.js";
export { fakeErrorStatuses, fakeReplySchema, normalizeReply } from "./fake-reply.js";
export type {
  FakeErrorStatus,
  FakeReply,
  FakeToolCall,
  FinalAnswer,
  NormalizedReply,
  ReasoningStep,
} from "./fake-reply.js";
export { PrefixCacheSimulator } from "./prefix-cache-simulator.js";
export type {
  CacheMode,
  CacheStats,
  CacheTotals,
  PrefixCacheResult,
  PrefixCacheSimulatorOptions,
  PrefixDivergence,
  PrefixSegment,
  SessionCacheStats,
} from "./prefix-cache-simulator.js";
export {
  renderAnthropicSegments,
  renderOpenAIChatSegments,
  renderOpenAIResponsesSegments,
  withoutCacheControl,
} from "./prompt-segments.js";
export type { AnthropicSegments, PromptSegment } from "./prompt-segments.js";
export { countTokens } from "./token-count.js";
export {
  CacheMarkerLimitError,
  ConformanceViolationError,
  InvalidFakeReplyError,
} from "./testkit-errors.js";
export type { FakeApi } from "./wire-api.js";
