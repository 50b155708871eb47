/** Recorded-shape Chat completion chunks (as OpenAI streams them with include_usage). */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: "chatcmpl-abc",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-5.1",
    system_fingerprint: "fp_1",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}

export function usageChunk(usage: Record<string, unknown>) {
  return {
    id: "chatcmpl-abc",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-5.1",
    choices: [],
    usage,
  };
}

/** A parallel tool-call answer: two calls, arguments split across deltas. */
export const parallelToolCallChunks = [
  chunk({ role: "assistant", content: null, refusal: null }),
  chunk({
    tool_calls: [
      { index: 0, id: "call_r1", type: "function", function: { name: "read_file", arguments: "" } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
  chunk({
    tool_calls: [
      { index: 1, id: "call_r2", type: "function", function: { name: "grep", arguments: "" } },
    ],
  }),
  chunk({ tool_calls: [{ index: 0, function: { arguments: ' "a.ts"}' } }] }),
  chunk({ tool_calls: [{ index: 1, function: { arguments: '{"q":"x"}' } }] }),
  chunk({}, "tool_calls"),
  usageChunk({
    prompt_tokens: 1500,
    completion_tokens: 30,
    total_tokens: 1530,
    prompt_tokens_details: { cached_tokens: 1152, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  }),
];
