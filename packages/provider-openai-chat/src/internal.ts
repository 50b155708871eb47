/**
 * `@cursor/provider-openai-chat/internal`: the pieces the adapter is built from (serialiser,
 * converters, tools, cache key, stream conversion, error classification, wire types and schemas),
 * for this repository's tests, benchmarks and tools. Not a stable API: it may change in any
 * release. Applications use the root entry (`createOpenAIChatAdapter`).
 */
export { serializeOpenAIChatRequest } from "./serialize-openai-chat-request.js";
export type { OpenAIChatSerializeSettings } from "./serialize-openai-chat-request.js";
export { convertToOpenAIChatInput } from "./convert-to-openai-chat-input.js";
export type { ConvertToOpenAIChatInputOptions } from "./convert-to-openai-chat-input.js";
export { prepareOpenAIChatTools } from "./openai-chat-prepare-tools.js";
export type { PrepareOpenAIChatToolsResult } from "./openai-chat-prepare-tools.js";
export { openAIChatPromptCacheKey } from "./openai-chat-cache-hints.js";
export { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";
export { convertOpenAIChatStream } from "./convert-openai-chat-stream.js";
export { convertOpenAIChatUsage } from "./convert-openai-chat-usage.js";
export { mapOpenAIChatFinishReason } from "./map-openai-chat-finish-reason.js";
export { openAIChatErrorRules, toOpenAIChatProviderError } from "./openai-chat-errors.js";
export {
  openAIChatChunkSchema,
  openAIChatProviderId,
  openAIChatReplaySchema,
} from "./openai-chat-api.js";
export type {
  OpenAIChatAllowedToolsChoice,
  OpenAIChatAssistantMessage,
  OpenAIChatChunk,
  OpenAIChatDeveloperMessage,
  OpenAIChatFunctionTool,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatReplay,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolChoice,
  OpenAIChatToolMessage,
  OpenAIChatUsage,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
  OpenAIChatWirePromptCacheOptions,
  OpenAIChatWirePromptCacheRetention,
} from "./openai-chat-api.js";
