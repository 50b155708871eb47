export { defaultKeepAliveTimeoutMs, startFakeProvider } from "./fake-provider.js";
export type {
  FakeProvider,
  FakeProviderCacheOptions,
  FakeProviderOptions,
  RecordedRequest,
  RequestCacheDiagnostics,
} from "./fake-provider.js";
export {
  fakeProviderUsage,
  parseFakeProviderArgs,
  runFakeProviderCli,
} from "./fake-provider-cli.js";
export type { FakeProviderCliIo } from "./fake-provider-cli.js";
export { scriptedAgentReply } from "./scripted-agent.js";
export { readAgentConversation } from "./agent-conversation.js";
export type { AgentConversation, AgentEvent } from "./agent-conversation.js";
export { fakeErrorStatuses, fakePhases, fakeReplySchema, normalizeReply } from "./fake-reply.js";
export type {
  FakeErrorStatus,
  FakePhase,
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
export { CacheMarkerLimitError, InvalidFakeReplyError } from "./fake-provider-errors.js";
export type { FakeApi } from "./wire-api.js";
export { firstDivergence, formatDivergence, joinPath, pathOf } from "./first-divergence.js";
export type { Divergence } from "./first-divergence.js";
