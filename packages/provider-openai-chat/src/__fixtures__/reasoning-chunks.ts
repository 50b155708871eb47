// Chat completion chunks of OpenAI-compatible servers that stream reasoning, each in the shape
// its server documents, and the other 2026 stream cases. Served verbatim by the
// @cursor/testkit fake provider in the adapter tests.
import { chunk, usageChunk } from "./chunks.js";

const usage = usageChunk({ prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 });

/** vLLM (reasoning parsers), OpenRouter, Ollama, LM Studio: `delta.reasoning` as a string. */
export const deltaReasoningChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning: "Check the " }),
  chunk({ reasoning: "imports first." }),
  chunk({ content: "The import is missing." }),
  chunk({}, "stop"),
  usage,
];

/** DeepSeek: `delta.reasoning_content` as a string. */
export const reasoningContentChunks = [
  chunk({ role: "assistant", content: null, reasoning_content: "" }),
  chunk({ content: null, reasoning_content: "Check the " }),
  chunk({ content: null, reasoning_content: "imports first." }),
  chunk({ content: "The import is missing.", reasoning_content: null }),
  chunk({}, "stop"),
  usage,
];

/**
 * Mistral (Magistral): `delta.content` as an array of content parts, reasoning in `thinking`
 * parts (themselves holding text parts), the answer in `text` parts.
 */
export const contentPartChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "Check the " }] }] }),
  chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text: "imports first." }] }] }),
  chunk({ content: [{ type: "text", text: "The import is missing." }] }),
  chunk({}, "stop"),
  usage,
];

/**
 * OpenRouter also sends `reasoning_details` next to `reasoning`; alone (some providers behind it)
 * it is an array of `reasoning.text` / `reasoning.summary` parts, and `reasoning.encrypted` ones
 * that carry no readable text.
 */
export const reasoningDetailsChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning_details: [{ type: "reasoning.text", text: "Check the ", index: 0 }] }),
  chunk({
    reasoning_details: [{ type: "reasoning.summary", summary: "imports first.", index: 0 }],
  }),
  chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "opaque", index: 1 }] }),
  chunk({ content: "The import is missing." }),
  chunk({}, "stop"),
  usage,
];

/** Both at once (OpenRouter): the text is counted once. */
export const reasoningAndDetailsChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({
    reasoning: "Check the imports first.",
    reasoning_details: [{ type: "reasoning.text", text: "Check the imports first.", index: 0 }],
  }),
  chunk({ content: "The import is missing." }),
  chunk({}, "stop"),
  usage,
];

/** Shapes nobody documents: kept out with a warning, the answer still streams. */
export const unknownReasoningChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ reasoning: { steps: ["a", "b"] } }),
  chunk({ content: [{ type: "audio", data: "AAAA" }] }),
  chunk({ content: 42 }),
  chunk({ content: "The import is missing." }),
  chunk({}, "stop"),
  usage,
];

/** Quota exhausted after the stream opened: an error object in place of a chunk. */
export const quotaErrorChunks = [
  chunk({ role: "assistant", content: "" }),
  {
    error: {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      param: null,
      code: "insufficient_quota",
    },
  },
];

/** GPT-5.6: usage reports the tokens written to the cache (billed at 1.25×). */
export const cacheWriteChunks = [
  chunk({ role: "assistant", content: "" }),
  chunk({ content: "Cached." }),
  chunk({}, "stop"),
  usageChunk({
    prompt_tokens: 2400,
    completion_tokens: 3,
    total_tokens: 2403,
    prompt_tokens_details: { cached_tokens: 1920, cache_write_tokens: 384, audio_tokens: 0 },
  }),
];
