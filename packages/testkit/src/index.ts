export const packageName = "@cursor/testkit";

// `describeProviderConformance` lives in the `@cursor/testkit/vitest` entry: it imports vitest,
// which this entry must not (other runners use `createConformanceLaws`).

// The fake provider, its replies and the prefix-cache simulation are runtime code in
// @cursor/fake-provider (the gateway's `simulated` provider runs them); re-exported here so a
// provider package's tests need one import.
export {
  CacheMarkerLimitError,
  InvalidFakeReplyError,
  PrefixCacheSimulator,
  defaultKeepAliveTimeoutMs,
  countTokens,
  fakeErrorStatuses,
  fakePhases,
  fakeProviderUsage,
  fakeReplySchema,
  normalizeReply,
  parseFakeProviderArgs,
  renderAnthropicSegments,
  renderOpenAIChatSegments,
  renderOpenAIResponsesSegments,
  runFakeProviderCli,
  startFakeProvider,
  withoutCacheControl,
} from "@cursor/fake-provider";
export type {
  AnthropicSegments,
  CacheMode,
  CacheStats,
  CacheTotals,
  FakeApi,
  FakeErrorStatus,
  FakePhase,
  FakeProvider,
  FakeProviderCacheOptions,
  FakeProviderCliIo,
  FakeProviderOptions,
  FakeReply,
  FakeToolCall,
  FinalAnswer,
  NormalizedReply,
  PrefixCacheResult,
  PrefixCacheSimulatorOptions,
  PrefixDivergence,
  PrefixSegment,
  PromptSegment,
  ReasoningStep,
  RecordedRequest,
  RequestCacheDiagnostics,
  SessionCacheStats,
} from "@cursor/fake-provider";
export { ConformanceViolationError } from "./testkit-errors.js";
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
export { firstDivergence, formatDivergence, joinPath, pathOf } from "@cursor/fake-provider";
export type { Divergence } from "@cursor/fake-provider";
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
