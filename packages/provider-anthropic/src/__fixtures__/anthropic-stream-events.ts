// Raw Messages API stream events (as the SDK yields them) for the normaliser tests: a thinking
// block, a redacted thinking block, text and two parallel tool calls, usage with cache fields.
export const toolRoundEvents: readonly unknown[] = [
  {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-sonnet-4-6",
      stop_reason: null,
      usage: {
        input_tokens: 12,
        cache_read_input_tokens: 3000,
        cache_creation_input_tokens: 200,
        output_tokens: 1,
        service_tier: "standard",
      },
    },
  },
  { type: "ping" },
  {
    type: "content_block_start",
    index: 0,
    content_block: { type: "thinking", thinking: "", signature: "" },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "Look at " },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "the files." },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "signature_delta", signature: "sig-abc" },
  },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "redacted_thinking", data: "opaque" },
  },
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: { type: "text", text: "", citations: null },
  },
  { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Checking" } },
  { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: " now." } },
  { type: "content_block_stop", index: 2 },
  {
    type: "content_block_start",
    index: 3,
    content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} },
  },
  { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: "" } },
  {
    type: "content_block_delta",
    index: 3,
    delta: { type: "input_json_delta", partial_json: '{"path": ' },
  },
  {
    type: "content_block_delta",
    index: 3,
    delta: { type: "input_json_delta", partial_json: '"a.ts"}' },
  },
  { type: "content_block_stop", index: 3 },
  {
    type: "content_block_start",
    index: 4,
    content_block: { type: "tool_use", id: "toolu_2", name: "list_dir", input: {} },
  },
  { type: "content_block_stop", index: 4 },
  {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 57 },
  },
  { type: "message_stop" },
];

// The following fixtures are written from Anthropic's documented streaming event format
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming).

const messageStart = (usage: Record<string, unknown>) => ({
  type: "message_start",
  message: {
    id: "msg_fixture",
    type: "message",
    role: "assistant",
    content: [],
    model: "claude-sonnet-4-6",
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});

/**
 * A reply whose output budget ran out while it was thinking: one signed thinking block and
 * `stop_reason: "max_tokens"`, no text, no tool use.
 */
export const thinkingOnlyEvents: readonly unknown[] = [
  messageStart({
    input_tokens: 40,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    output_tokens: 1,
  }),
  {
    type: "content_block_start",
    index: 0,
    content_block: { type: "thinking", thinking: "", signature: "" },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: {
      type: "thinking_delta",
      thinking: "The user wants a refactor of every module, so first ",
    },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "I list the modules and" },
  },
  {
    type: "content_block_delta",
    index: 0,
    delta: {
      type: "signature_delta",
      signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
    },
  },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "max_tokens", stop_sequence: null },
    usage: { output_tokens: 1024 },
  },
  { type: "message_stop" },
];

/** The account ran out of credit after the stream opened: an `error` event, `billing_error`. */
export const billingErrorEvents: readonly unknown[] = [
  messageStart({ input_tokens: 12, output_tokens: 1 }),
  { type: "ping" },
  {
    type: "error",
    error: {
      type: "billing_error",
      message: "Your credit balance is too low to access the Anthropic API.",
    },
  },
];

/** Cache writes split by TTL: 1-hour markers on the stable prefix, 5-minute ones on history. */
export const cacheWriteEvents: readonly unknown[] = [
  messageStart({
    input_tokens: 25,
    cache_creation_input_tokens: 4200,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 1200, ephemeral_1h_input_tokens: 3000 },
    output_tokens: 1,
    service_tier: "standard",
  }),
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Cached." } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 3 },
  },
  { type: "message_stop" },
];
