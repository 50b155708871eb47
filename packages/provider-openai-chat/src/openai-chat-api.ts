import type { JsonObject } from "@cursor/run";
import { z } from "zod";

/** This adapter's id, and the key of its entry in an assistant message's replay bag. */
export const openAIChatProviderId = "openai-chat";

// ------------------------------------------------------------------ request (wire) types
// Plain mutable data (no readonly arrays) so the body is assignable to the SDK's param type;
// `openai-chat-body.type-test.ts` checks that at compile time.

export interface ChatTextPart {
  type: "text";
  text: string;
}

export interface ChatImagePart {
  type: "image_url";
  image_url: { url: string };
}

export type ChatUserContentPart = ChatTextPart | ChatImagePart;

export interface ChatSystemMessage {
  role: "system";
  content: string;
}

export interface ChatDeveloperMessage {
  role: "developer";
  content: string;
}

export interface ChatUserMessage {
  role: "user";
  /** A string for a single text part (accepted by every OpenAI-compatible server), else parts. */
  content: string | ChatUserContentPart[];
}

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatAssistantMessage {
  role: "assistant";
  /** `null` when the message only calls tools. */
  content: string | null;
  /** Not an OpenAI field: DeepSeek-style servers want their reasoning text back. */
  reasoning_content?: string;
  tool_calls?: ChatToolCall[];
}

export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type ChatMessage =
  | ChatSystemMessage
  | ChatDeveloperMessage
  | ChatUserMessage
  | ChatAssistantMessage
  | ChatToolMessage;

export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

export interface ChatAllowedToolsChoice {
  type: "allowed_tools";
  allowed_tools: {
    mode: "auto";
    tools: Array<{ type: "function"; function: { name: string } }>;
  };
}

export type ChatToolChoice = "none" | ChatAllowedToolsChoice;

/** Wire value of `prompt_cache_retention` (the API spells the in-memory policy `in_memory`). */
export type ChatPromptCacheRetention = "in_memory" | "24h";

/** Wire value of `prompt_cache_options` (GPT-5.6 and later). */
export interface ChatPromptCacheOptions {
  mode?: "implicit" | "explicit";
  ttl?: "30m";
}

/** The exact streaming request body this package sends to `/chat/completions`. */
export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatFunctionTool[];
  tool_choice?: ChatToolChoice;
  max_completion_tokens?: number;
  prompt_cache_key: string;
  /** Never together with `prompt_cache_options` (one caching setting per adapter). */
  prompt_cache_retention?: ChatPromptCacheRetention;
  prompt_cache_options?: ChatPromptCacheOptions;
  stream: true;
  stream_options: { include_usage: true };
}

// ------------------------------------------------------------------ response (stream) schemas
// Loose objects and nullish fields throughout: OpenAI-compatible servers add, omit and null out
// fields freely, and none of that may break a stream.

export const chatToolCallDeltaSchema = z.looseObject({
  index: z.number().int().min(0).nullish(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z
    .looseObject({
      name: z.string().nullish(),
      arguments: z.string().nullish(),
    })
    .nullish(),
});

/**
 * `content`, `reasoning`, `reasoning_content` and `reasoning_details` take many shapes across
 * servers (strings, part lists); they are read by `readOpenAIChatDelta`, never validated here,
 * so no shape can fail the stream.
 */
export const chatDeltaSchema = z.looseObject({
  role: z.string().nullish(),
  content: z.unknown().optional(),
  reasoning_content: z.unknown().optional(),
  reasoning: z.unknown().optional(),
  reasoning_details: z.unknown().optional(),
  refusal: z.string().nullish(),
  tool_calls: z.array(chatToolCallDeltaSchema).nullish(),
});

export const chatChoiceSchema = z.looseObject({
  index: z.number().int().nullish(),
  delta: chatDeltaSchema.nullish(),
  finish_reason: z.string().nullish(),
});

export const chatUsageSchema = z.looseObject({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  prompt_tokens_details: z
    .looseObject({
      cached_tokens: z.number().nullish(),
      cache_write_tokens: z.number().nullish(),
    })
    .nullish(),
  /** DeepSeek-style cache accounting. */
  prompt_cache_hit_tokens: z.number().nullish(),
  prompt_cache_miss_tokens: z.number().nullish(),
});

export const chatChunkSchema = z.looseObject({
  id: z.string().nullish(),
  choices: z.array(chatChoiceSchema).nullish(),
  usage: chatUsageSchema.nullish(),
});

export type ChatToolCallDelta = z.infer<typeof chatToolCallDeltaSchema>;
export type ChatChunk = z.infer<typeof chatChunkSchema>;
export type ChatUsage = z.infer<typeof chatUsageSchema>;

// ------------------------------------------------------------------ replay state

/** What this adapter stores in an assistant message's replay bag under `openai-chat`. */
export const openAIChatReplaySchema = z.looseObject({ reasoningContent: z.string() });
export type OpenAIChatReplay = z.infer<typeof openAIChatReplaySchema>;
