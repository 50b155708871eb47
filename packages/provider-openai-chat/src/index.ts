export { createOpenAIChatAdapter } from "./openai-chat-adapter.js";
export type { OpenAIChatAdapterOptions } from "./openai-chat-adapter.js";
export type { OpenAIChatBody } from "./openai-chat-api.js";
export type {
  OpenAIChatPromptCacheOptions,
  OpenAIChatPromptCacheRetention,
} from "./openai-chat-cache-hints.js";
export type { OpenAIChatSystemRole } from "./convert-to-openai-chat-input.js";
