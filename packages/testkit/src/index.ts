export const packageName = "@cursor/testkit";

// `describeProviderConformance` lives in the `@cursor/testkit/vitest` entry: it imports vitest,
// which this entry must not (the gateway imports `startFakeProvider` at runtime).

export { startFakeProvider } from "./fake-provider.js";
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
export {
  CacheMarkerLimitError,
  ConformanceViolationError,
  InvalidFakeReplyError,
} from "./testkit-errors.js";
export type { FakeApi } from "./wire-api.js";
export {
  allContentKindsConversation,
  allowedToolsByMode,
  buildConversation,
  conformancePromptSpec,
  conversationArbitrary,
  tinyPng,
} from "./conversation-arbitrary.js";
export type {
  AgentMode,
  AssistantOrigin,
  ConversationArbitraryOptions,
  ConversationSnapshot,
  ConversationStep,
  GeneratedConversation,
  GeneratedToolCall,
  ReplayStateInput,
} from "./conversation-arbitrary.js";
export { firstDivergence, formatDivergence, joinPath, pathOf } from "./first-divergence.js";
export type { Divergence } from "./first-divergence.js";
export {
  countCacheControlMarkers,
  createConformanceLaws,
  stripCacheControl,
} from "./provider-conformance-laws.js";
export type { ConformanceLaw, ProviderConformanceOptions } from "./provider-conformance-laws.js";
export {
  agentSessionArbitrary,
  generateAgentSession,
  sessionStats,
} from "./generate-agent-session.js";
export type { AgentSessionOptions, SessionFeature } from "./generate-agent-session.js";
export type {
  AgentSession,
  AgentSessionStats,
  RunRequestBody,
  SessionAction,
  SessionBackgroundCompletion,
  SessionEvent,
  SessionEventType,
  SessionFileReference,
  SessionMode,
  SessionRequestContext,
  SessionRule,
  SessionSelectedContext,
  SessionToolResult,
  SessionUserMessage,
} from "./agent-session-events.js";
export { contextVariantNames, requestContextVariants } from "./session-content.js";
export { SeededRandom } from "./seeded-random.js";
