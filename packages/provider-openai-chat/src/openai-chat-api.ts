import type { JsonObject } from "@cursor/run";
import { z } from "zod";

/** This adapter's id, and the key of its entry in an assistant message's replay bag. */
export const openAIChatProviderId = "openai-chat";

// ------------------------------------------------------------------ request (wire) types
// Plain mutable data (no readonly arrays) so the body is assignable to the SDK's param type;
// `openai-chat-body.type-test.ts` checks that at compile time.

export interface OpenAIChatTextPart {
  type: "text";
  text: string;
}

export interface OpenAIChatImagePart {
  type: "image_url";
  image_url: { url: string };
}

export type OpenAIChatUserContentPart = OpenAIChatTextPart | OpenAIChatImagePart;

export interface OpenAIChatSystemMessage {
  role: "system";
  content: string;
}

export interface OpenAIChatDeveloperMessage {
  role: "developer";
  content: string;
}

export interface OpenAIChatUserMessage {
  role: "user";
  /** A string for a single text part (accepted by every OpenAI-compatible server), else parts. */
  content: string | OpenAIChatUserContentPart[];
}

export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface OpenAIChatAssistantMessage {
  role: "assistant";
  /** `null` when the message only calls tools. */
  content: string | null;
  /** Not an OpenAI field: DeepSeek-style servers want their reasoning text back. */
  reasoning_content?: string;
  tool_calls?: OpenAIChatToolCall[];
}

export interface OpenAIChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type OpenAIChatMessage =
  | OpenAIChatSystemMessage
  | OpenAIChatDeveloperMessage
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;

export interface OpenAIChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

export interface OpenAIChatAllowedToolsChoice {
  type: "allowed_tools";
  allowed_tools: {
    mode: "auto";
    tools: Array<{ type: "function"; function: { name: string } }>;
  };
}

export type OpenAIChatToolChoice = "none" | OpenAIChatAllowedToolsChoice;

/** Wire value of `prompt_cache_retention` (the API spells the in-memory policy `in_memory`). */
export type OpenAIChatWirePromptCacheRetention = "in_memory" | "24h";

/** Wire value of `prompt_cache_options` (GPT-5.6 and later). */
export interface OpenAIChatWirePromptCacheOptions {
  mode?: "implicit" | "explicit";
  ttl?: "30m";
}

/** The exact streaming request body this package sends to `/chat/completions`. */
export interface OpenAIChatBody {
  model: string;
  messages: OpenAIChatMessage[];
  tools?: OpenAIChatFunctionTool[];
  tool_choice?: OpenAIChatToolChoice;
  max_completion_tokens?: number;
  prompt_cache_key: string;
  /** Never together with `prompt_cache_options` (one caching setting per adapter). */
  prompt_cache_retention?: OpenAIChatWirePromptCacheRetention;
  prompt_cache_options?: OpenAIChatWirePromptCacheOptions;
  stream: true;
  stream_options: { include_usage: true };
}

// ------------------------------------------------------------------ response (stream) schemas
// Loose objects and nullish fields throughout: OpenAI-compatible servers add, omit and null out
// fields freely, and none of that may break a stream.

const openAIChatToolCallDeltaSchema = z.looseObject({
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
const openAIChatDeltaSchema = z.looseObject({
  role: z.string().nullish(),
  content: z.unknown().optional(),
  reasoning_content: z.unknown().optional(),
  reasoning: z.unknown().optional(),
  reasoning_details: z.unknown().optional(),
  refusal: z.string().nullish(),
  tool_calls: z.array(openAIChatToolCallDeltaSchema).nullish(),
});

const openAIChatChoiceSchema = z.looseObject({
  index: z.number().int().nullish(),
  delta: openAIChatDeltaSchema.nullish(),
  finish_reason: z.string().nullish(),
});

const openAIChatUsageSchema = z.looseObject({
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

export const openAIChatChunkSchema = z.looseObject({
  id: z.string().nullish(),
  choices: z.array(openAIChatChoiceSchema).nullish(),
  usage: openAIChatUsageSchema.nullish(),
});

export type OpenAIChatToolCallDelta = z.infer<typeof openAIChatToolCallDeltaSchema>;
export type OpenAIChatChunk = z.infer<typeof openAIChatChunkSchema>;
export type OpenAIChatUsage = z.infer<typeof openAIChatUsageSchema>;

// ------------------------------------------------------------------ replay state

/** What this adapter stores in an assistant message's replay bag under `openai-chat`. */
export const openAIChatReplaySchema = z.looseObject({ reasoningContent: z.string() });
export type OpenAIChatReplay = z.infer<typeof openAIChatReplaySchema>;
