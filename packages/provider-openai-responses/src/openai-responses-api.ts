import { z } from "zod";

// ---------------------------------------------------------------- request (wire types)
//
// The subset of the Responses API request this package sends. Plain mutable data, so that a body
// is assignable to the SDK's `ResponseCreateParamsStreaming` (checked in
// `openai-responses-body.type-test.ts`). Key order in the objects built by the converters is fixed:
// JSON.stringify of a body is the exact byte form sent.

export interface OpenAIResponsesInputText {
  type: "input_text";
  text: string;
}

export interface OpenAIResponsesInputImage {
  type: "input_image";
  /** A `data:<mime>;base64,<data>` URL: the canonical image bytes, never a remote reference. */
  image_url: string;
  detail: "auto";
}

export type OpenAIResponsesInputContentPart = OpenAIResponsesInputText | OpenAIResponsesInputImage;

export interface OpenAIResponsesUserMessageItem {
  type: "message";
  role: "user";
  content: OpenAIResponsesInputContentPart[];
}

/**
 * What an assistant message item is (gpt-5.3-codex and later label each one): intermediate
 * `commentary` or the `final_answer`. The API asks for it back on every assistant item.
 */
export type OpenAIResponsesMessagePhase = "commentary" | "final_answer";

/**
 * Assistant text goes back as a plain string; the API stores it as `output_text`. `phase` is
 * present exactly when the model's own output item had one.
 */
export interface OpenAIResponsesAssistantMessageItem {
  type: "message";
  role: "assistant";
  content: string;
  phase?: OpenAIResponsesMessagePhase;
}

export interface OpenAIResponsesReasoningSummaryText {
  type: "summary_text";
  text: string;
}

/** A reasoning item of an earlier response, sent back unchanged (stateless replay). */
export interface OpenAIResponsesReasoningItem {
  type: "reasoning";
  id: string;
  summary: OpenAIResponsesReasoningSummaryText[];
  encrypted_content: string;
}

export interface OpenAIResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  /** The exact argument text the model produced. */
  arguments: string;
}

export interface OpenAIResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  /** A string for text-only results; a part list when the result carries an image. */
  output: string | OpenAIResponsesInputContentPart[];
}

export type OpenAIResponsesInputItem =
  | OpenAIResponsesUserMessageItem
  | OpenAIResponsesAssistantMessageItem
  | OpenAIResponsesReasoningItem
  | OpenAIResponsesFunctionCallItem
  | OpenAIResponsesFunctionCallOutputItem;

export interface OpenAIResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: { [key: string]: unknown };
  strict: boolean;
}

export interface OpenAIResponsesAllowedToolsChoice {
  type: "allowed_tools";
  mode: "auto";
  tools: { type: "function"; name: string }[];
}

export type OpenAIResponsesToolChoice = "none" | OpenAIResponsesAllowedToolsChoice;

export type OpenAIResponsesReasoningEffort =
  "none" | "minimal" | "low" | "medium" | "high" | "xhigh";
export type OpenAIResponsesReasoningSummary = "auto" | "concise" | "detailed";

export interface OpenAIResponsesReasoningConfig {
  effort?: OpenAIResponsesReasoningEffort;
  summary?: OpenAIResponsesReasoningSummary;
}

/** The wire value; the adapter option spells it `in-memory`. */
export type OpenAIResponsesWirePromptCacheRetention = "in_memory" | "24h";

/**
 * `prompt_cache_options` (GPT-5.6 and later): `mode` `implicit` (the default: one implicit
 * breakpoint at the end of the prompt) or `explicit` (only `prompt_cache_breakpoint`s, which
 * this package does not place, so no caching); `ttl` the minimum lifetime (`30m`).
 */
export interface OpenAIResponsesWirePromptCacheOptions {
  mode?: "implicit" | "explicit";
  ttl?: "30m";
}

/** The complete streaming request body. */
export interface OpenAIResponsesBody {
  model: string;
  instructions: string;
  tools?: OpenAIResponsesFunctionTool[];
  tool_choice?: OpenAIResponsesToolChoice;
  input: OpenAIResponsesInputItem[];
  reasoning?: OpenAIResponsesReasoningConfig;
  max_output_tokens?: number;
  store: false;
  /** Absent only when the adapter is told the model has no encrypted reasoning. */
  include?: "reasoning.encrypted_content"[];
  stream: true;
  prompt_cache_key: string;
  /** Never together with `prompt_cache_options` (one caching setting per adapter). */
  prompt_cache_retention?: OpenAIResponsesWirePromptCacheRetention;
  prompt_cache_options?: OpenAIResponsesWirePromptCacheOptions;
}

// ---------------------------------------------------------------- responses (zod, tolerant)
//
// Plain `z.object` strips unknown keys instead of failing: the API adds fields over time, and a
// new field must never break a stream.

const countSchema = z.number().int().nonnegative().nullish();

const openAIResponsesUsageSchema = z.object({
  input_tokens: countSchema,
  input_tokens_details: z
    .object({ cached_tokens: countSchema, cache_write_tokens: countSchema })
    .nullish(),
  output_tokens: countSchema,
});
export type OpenAIResponsesUsage = z.infer<typeof openAIResponsesUsageSchema>;

export const openAIResponsesErrorBodySchema = z.object({
  code: z.string().nullish(),
  message: z.string().nullish(),
  type: z.string().nullish(),
  param: z.string().nullish(),
});

const openAIResponsesReasoningItemSchema = z.object({
  type: z.literal("reasoning"),
  id: z.string(),
  summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })),
  encrypted_content: z.string().nullish(),
});

const functionCallOutputSchema = z.object({
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

export const openAIResponsesMessagePhaseSchema = z.enum(["commentary", "final_answer"]);

const messageOutputSchema = z.object({
  type: z.literal("message"),
  id: z.string().nullish(),
  /** Unknown future phases are kept out rather than failing the stream. */
  phase: z.string().nullish(),
  content: z.array(
    z.union([
      z.object({ type: z.literal("output_text"), text: z.string() }),
      z.object({ type: z.literal("refusal"), refusal: z.string() }),
      z.object({ type: z.string() }),
    ]),
  ),
});

/** Output items this package reads; any other item type is ignored. */
const openAIResponsesOutputItemSchema = z.union([
  functionCallOutputSchema,
  openAIResponsesReasoningItemSchema,
  messageOutputSchema,
  z.object({ type: z.string() }),
]);
export type OpenAIResponsesOutputItem = z.infer<typeof openAIResponsesOutputItemSchema>;

const responseObjectSchema = z.object({
  status: z.string().nullish(),
  usage: openAIResponsesUsageSchema.nullish(),
  incomplete_details: z.object({ reason: z.string().nullish() }).nullish(),
  error: openAIResponsesErrorBodySchema.nullish(),
});

/** The stream events this package reads; others are validated only by their `type`. */
export const openAIResponsesStreamEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("response.output_text.delta"),
    delta: z.string(),
    item_id: z.string().nullish(),
    output_index: z.number().int().nonnegative().nullish(),
  }),
  z.object({
    type: z.literal("response.reasoning_summary_part.added"),
    item_id: z.string(),
    summary_index: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal("response.reasoning_summary_text.delta"), delta: z.string() }),
  z.object({ type: z.literal("response.output_item.done"), item: openAIResponsesOutputItemSchema }),
  z.object({ type: z.literal("response.completed"), response: responseObjectSchema }),
  z.object({ type: z.literal("response.incomplete"), response: responseObjectSchema }),
  z.object({ type: z.literal("response.failed"), response: responseObjectSchema }),
  z.object({
    type: z.literal("error"),
    code: z.string().nullish(),
    message: z.string().nullish(),
  }),
]);
export type OpenAIResponsesStreamEvent = z.infer<typeof openAIResponsesStreamEventSchema>;

/** Event types `openAIResponsesStreamEventSchema` knows; anything else is skipped unparsed. */
export const knownOpenAIResponsesStreamEventTypes: ReadonlySet<string> = new Set(
  openAIResponsesStreamEventSchema.options.map((option) => option.shape.type.value),
);
