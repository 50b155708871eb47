export { abandonedToolCallText, closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
export { headFromCheckpointState, headToCheckpointState } from "./checkpoint-projection.js";
export { commitTurnPlan, recordTurnPlan } from "./commit-turn-plan.js";
export { createConversationCompactor } from "./conversation-compactor.js";
export type { CompactionReason, ConversationCompactorOptions } from "./conversation-compactor.js";
export {
  appendTurns,
  createConversationHead,
  findTurn,
  findTurnOfRun,
  turnsOfRun,
  isDelivered,
  isRecordedMessageId,
  turnRecordSchema,
} from "./conversation-head.js";
export type { ConversationHead, TurnRecord } from "./conversation-head.js";
export { planBackgroundCompletions, planInjectedContext } from "./plan-runtime-events.js";
export type { CompiledBackgroundCompletion, CompiledInjection } from "./plan-runtime-events.js";
export { planSummarize } from "./plan-summarize.js";
export { planToolResults } from "./plan-tool-results.js";
export type { SubmittedToolResult } from "./plan-tool-results.js";
export { planUserTurn } from "./plan-user-turn.js";
export { prepareTurn } from "./prepare-turn.js";
export type { CompiledUserTurn } from "./plan-user-turn.js";
export {
  ConversationMismatchError,
  ProjectionConflictError,
  RunIdMismatchError,
  RunIdReusedError,
  ToolResultConflictError,
} from "./projection-errors.js";
export { isAssistantIdOfRun, lastAssistantOfRun, runProgress } from "./run-progress.js";
export type { RunProgress } from "./run-progress.js";
export type {
  AwaitToolsPlan,
  CallModelPlan,
  CompactPlan,
  CompiledRequestContext,
  CompiledRuntime,
  DonePlan,
  TurnAction,
  TurnPlan,
  TurnPlanNext,
} from "./turn-plan.js";
export {
  requestContextIdentity,
  userTurnContentDigest,
  userTurnIdentity,
} from "./user-turn-identity.js";
