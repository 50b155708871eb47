export { createOpenAIChatAdapter } from "./openai-chat-adapter.js";
export type { OpenAIChatAdapterOptions } from "./openai-chat-adapter.js";
export { serializeOpenAIChatRequest } from "./serialize-openai-chat-request.js";
export type { OpenAIChatSerializeSettings } from "./serialize-openai-chat-request.js";
export { convertToOpenAIChatInput } from "./convert-to-openai-chat-input.js";
export type {
  ConvertToOpenAIChatInputOptions,
  OpenAIChatSystemRole,
} from "./convert-to-openai-chat-input.js";
export { prepareOpenAIChatTools } from "./openai-chat-prepare-tools.js";
export type { PrepareOpenAIChatToolsResult } from "./openai-chat-prepare-tools.js";
export { openAIChatPromptCacheKey } from "./openai-chat-cache-hints.js";
export type {
  OpenAIChatPromptCacheOptions,
  OpenAIChatPromptCacheRetention,
} from "./openai-chat-cache-hints.js";
export { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";
export { convertOpenAIChatStream } from "./convert-openai-chat-stream.js";
export { convertOpenAIChatUsage } from "./convert-openai-chat-usage.js";
export { mapOpenAIChatFinishReason } from "./map-openai-chat-finish-reason.js";
export { toOpenAIChatProviderError, openAIChatErrorRules } from "./openai-chat-errors.js";
export {
  openAIChatChunkSchema,
  openAIChatProviderId,
  openAIChatReplaySchema,
} from "./openai-chat-api.js";
export type {
  OpenAIChatAllowedToolsChoice,
  OpenAIChatAssistantMessage,
  OpenAIChatBody,
  OpenAIChatChunk,
  OpenAIChatDeveloperMessage,
  OpenAIChatFunctionTool,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatWirePromptCacheOptions,
  OpenAIChatWirePromptCacheRetention,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
  OpenAIChatToolMessage,
  OpenAIChatUsage,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
  OpenAIChatReplay,
} from "./openai-chat-api.js";
