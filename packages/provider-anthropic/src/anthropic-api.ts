import { z } from "zod";
import type { JsonObject, JsonValue } from "@cursor/run";

// ---------------------------------------------------------------- request (wire) types
// Our own narrow view of the Messages API request: only what this package emits. Arrays are
// mutable types so the body stays assignable to the SDK's param types (see
// `anthropic-body.type-test.ts`); nothing in this package mutates a body after building it.

export type AnthropicCacheTtl = "5m" | "1h";

export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: AnthropicCacheTtl;
}

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl;
}

/** The image media types the Messages API accepts for base64 sources. */
export const anthropicImageMediaTypes = [
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
] as const;
export type AnthropicImageMediaType = (typeof anthropicImageMediaTypes)[number];

export interface AnthropicImageBlock {
  type: "image";
  source: { type: "base64"; media_type: AnthropicImageMediaType; data: string };
  cache_control?: AnthropicCacheControl;
}

/** Replayed verbatim; the API refuses edited thinking, and these blocks take no cache marker. */
export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error: boolean;
  cache_control?: AnthropicCacheControl;
}

export type AnthropicUserBlock =
  AnthropicTextBlock | AnthropicImageBlock | AnthropicToolResultBlock;
export type AnthropicAssistantBlock =
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | AnthropicTextBlock
  | AnthropicToolUseBlock;
export type AnthropicContentBlock = AnthropicUserBlock | AnthropicAssistantBlock;

export interface AnthropicUserMessage {
  role: "user";
  content: AnthropicUserBlock[];
}

export interface AnthropicAssistantMessage {
  role: "assistant";
  content: AnthropicAssistantBlock[];
}

export type AnthropicMessage = AnthropicUserMessage | AnthropicAssistantMessage;

export interface AnthropicToolInputSchema {
  type: "object";
  [key: string]: JsonValue;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: AnthropicToolInputSchema;
  cache_control?: AnthropicCacheControl;
}

export interface AnthropicThinkingConfig {
  type: "enabled";
  budget_tokens: number;
}

/**
 * The exact request body `serialize` produces and `stream` sends. Key order is fixed: model,
 * max_tokens, thinking, system, tools, messages, stream. `tool_choice` is never sent (see
 * `anthropic-prepare-tools.ts`).
 */
export interface AnthropicBody {
  model: string;
  max_tokens: number;
  thinking?: AnthropicThinkingConfig;
  system: AnthropicTextBlock[];
  tools?: AnthropicTool[];
  messages: AnthropicMessage[];
  stream: true;
}

// ---------------------------------------------------------------- stream event schemas
// Tolerant of extra fields (z.object strips them) and of unknown event / block / delta types,
// which the stream normaliser ignores rather than failing on.

const nullableCount = z.number().int().nonnegative().nullish();

const anthropicUsageSchema = z.object({
  input_tokens: nullableCount,
  output_tokens: nullableCount,
  cache_read_input_tokens: nullableCount,
  cache_creation_input_tokens: nullableCount,
  /** The cache writes split by TTL (5-minute and 1-hour markers). */
  cache_creation: z
    .object({
      ephemeral_5m_input_tokens: nullableCount,
      ephemeral_1h_input_tokens: nullableCount,
    })
    .nullish(),
});
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

export const messageStartEventSchema = z.object({
  type: z.literal("message_start"),
  message: z.object({ usage: anthropicUsageSchema.nullish() }),
});

export const contentBlockStartEventSchema = z.object({
  type: z.literal("content_block_start"),
  index: z.number().int().nonnegative(),
  content_block: z.looseObject({ type: z.string() }),
});

export const textBlockStartSchema = z.object({ type: z.literal("text"), text: z.string() });
export const thinkingBlockStartSchema = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().nullish(),
});
export const redactedThinkingBlockStartSchema = z.object({
  type: z.literal("redacted_thinking"),
  data: z.string(),
});
export const toolUseBlockStartSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown().optional(),
});

export const contentBlockDeltaEventSchema = z.object({
  type: z.literal("content_block_delta"),
  index: z.number().int().nonnegative(),
  delta: z.looseObject({ type: z.string() }),
});

export const textDeltaSchema = z.object({ type: z.literal("text_delta"), text: z.string() });
export const thinkingDeltaSchema = z.object({
  type: z.literal("thinking_delta"),
  thinking: z.string(),
});
export const signatureDeltaSchema = z.object({
  type: z.literal("signature_delta"),
  signature: z.string(),
});
export const inputJsonDeltaSchema = z.object({
  type: z.literal("input_json_delta"),
  partial_json: z.string(),
});

export const contentBlockStopEventSchema = z.object({
  type: z.literal("content_block_stop"),
  index: z.number().int().nonnegative(),
});

export const messageDeltaEventSchema = z.object({
  type: z.literal("message_delta"),
  delta: z.object({ stop_reason: z.string().nullish() }),
  usage: anthropicUsageSchema.nullish(),
});

/** Every event has a string `type`; anything else is a malformed stream. */
export const anthropicStreamEventSchema = z.looseObject({ type: z.string() });
