export { packageName } from "./package-name.js";

// Request schema
export { parseAgentRunRequest } from "./parse-agent-run-request.js";
export type { ParseAgentRunRequestResult } from "./parse-agent-run-request.js";
export {
  agentModeSchema,
  agentModes,
  agentRunRequestSchema,
  conversationIdSchema,
} from "./agent-run-request-schema.js";
export type { AgentMode, AgentRunRequest } from "./agent-run-request-schema.js";
export {
  agentActionSchema,
  agentActionTypes,
  backgroundCompletionActionSchema,
  backgroundCompletionInputSchema,
  backgroundTaskKinds,
  backgroundTaskStatuses,
  injectContextActionSchema,
  summarizeActionSchema,
  toolResultInputSchema,
  toolResultsActionSchema,
  userMessageActionSchema,
} from "./agent-action-schema.js";
export type {
  AgentAction,
  AgentActionType,
  BackgroundCompletionAction,
  BackgroundCompletionInput,
  BackgroundTaskKind,
  BackgroundTaskStatus,
  InjectContextAction,
  SummarizeAction,
  ToolResultInput,
  ToolResultsAction,
  UserMessageAction,
} from "./agent-action-schema.js";
export {
  fileReferenceSchema,
  imageInputSchema,
  imageMimeTypes,
  selectedContextItemSchema,
  userMessageInputSchema,
} from "./user-message-schema.js";
export type {
  FileReference,
  ImageInput,
  ImageMimeType,
  SelectedContextItem,
  UserMessageInput,
} from "./user-message-schema.js";
export {
  environmentInputSchema,
  gitRepositoryInputSchema,
  mcpInputSchema,
  mcpServerInputSchema,
  mcpToolInputSchema,
  requestContextInputSchema,
  ruleInputSchema,
  skillInputSchema,
  subagentInputSchema,
  timeZoneSchema,
} from "./request-context-schema.js";
export type {
  EnvironmentInput,
  GitRepositoryInput,
  McpServerInput,
  McpToolInput,
  RequestContextInput,
  RuleInput,
  SkillInput,
  SubagentInput,
} from "./request-context-schema.js";
export { requestLimits } from "./limits.js";
export { formatIssuePath } from "./validation-issues.js";

// Request context and runtime messages
export { compileRequestContext } from "./compile-request-context.js";
export type { CompiledRequestContext } from "./compile-request-context.js";
export { compileUserTurnRuntime } from "./compile-user-turn-runtime.js";
export type { UserTurnRuntimeInput } from "./compile-user-turn-runtime.js";
export { compileBackgroundCompletionRuntime } from "./compile-background-completion-runtime.js";
export { compileInjectedContextRuntime } from "./compile-injected-context-runtime.js";
export type { CompiledRuntime } from "./compiled-runtime.js";
export { renderSummaryText, summarizerInstructions } from "./summary-texts.js";
export { formatTimestamp } from "./format-timestamp.js";
export { escapeXmlAttribute } from "./escape-xml-attribute.js";

// Prompt spec
export {
  allowedToolsForMode,
  createCursorPromptSpec,
  defaultModelDisplayName,
  modesWithMcpTools,
} from "./cursor-prompt-spec.js";
export type { CursorPromptSpecInput } from "./cursor-prompt-spec.js";
export { mcpToolName, toolNamePattern } from "./mcp-tool-name.js";

// Prompt assets
export { cursorPromptSources } from "./prompt-assets.js";
export type { CursorPromptSources, PromptSource } from "./prompt-assets.js";
export { cursorPrompts, loadCursorPrompts, runtimePlaceholders } from "./cursor-prompts.js";
export type { CursorPrompts, RuntimePlaceholder } from "./cursor-prompts.js";
export { parsePromptTemplate } from "./prompt-template.js";
export type { PromptTemplate } from "./prompt-template.js";
export { parseToolCatalog } from "./tool-catalog.js";
export type { ToolCatalogEntry } from "./tool-catalog.js";

// Errors
export { PromptAssetError, RequestValidationError, ToolNameCollisionError } from "./errors.js";
export type { PromptAssetProblem, ValidationIssue } from "./errors.js";
