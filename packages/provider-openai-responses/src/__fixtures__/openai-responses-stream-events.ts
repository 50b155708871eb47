// Responses API stream events written from OpenAI's documented streaming format
// (https://platform.openai.com/docs/api-reference/responses-streaming), as the official SDK
// yields them. Served verbatim by the @cursor/testkit fake provider in the adapter tests.

const response = (status: string, extra: Record<string, unknown> = {}) => ({
  id: "resp_fixture",
  object: "response",
  created_at: 1_800_000_000,
  status,
  model: "gpt-5.3-codex",
  output: [],
  error: null,
  incomplete_details: null,
  usage: null,
  ...extra,
});

const usage = {
  input_tokens: 2400,
  input_tokens_details: { cached_tokens: 1920, cache_write_tokens: 384 },
  output_tokens: 90,
  output_tokens_details: { reasoning_tokens: 40 },
  total_tokens: 2490,
};

const reasoning = {
  id: "rs_fixture_1",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "Read the file before editing it." }],
  encrypted_content: "gAAAAABfixture-encrypted-reasoning",
  status: "completed",
};

const message = (id: string, phase: string, text: string) => ({
  id,
  type: "message",
  status: "completed",
  role: "assistant",
  phase,
  content: [{ type: "output_text", annotations: [], logprobs: [], text }],
});

const textEvents = (id: string, outputIndex: number, phase: string, pieces: string[]) => [
  {
    type: "response.output_item.added",
    output_index: outputIndex,
    item: { id, type: "message", status: "in_progress", role: "assistant", phase, content: [] },
  },
  {
    type: "response.content_part.added",
    item_id: id,
    output_index: outputIndex,
    content_index: 0,
    part: { type: "output_text", annotations: [], logprobs: [], text: "" },
  },
  ...pieces.map((delta) => ({
    type: "response.output_text.delta",
    item_id: id,
    output_index: outputIndex,
    content_index: 0,
    delta,
    logprobs: [],
  })),
  {
    type: "response.output_text.done",
    item_id: id,
    output_index: outputIndex,
    content_index: 0,
    text: pieces.join(""),
    logprobs: [],
  },
  {
    type: "response.output_item.done",
    output_index: outputIndex,
    item: message(id, phase, pieces.join("")),
  },
];

/**
 * gpt-5.3-codex style: reasoning, a `commentary` message, a function call, then (in the same
 * response) a second commentary message — each its own output item with its own `phase`.
 */
export const phaseToolRoundEvents: readonly unknown[] = [
  { type: "response.created", sequence_number: 0, response: response("in_progress") },
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { id: reasoning.id, type: "reasoning", summary: [] },
  },
  {
    type: "response.reasoning_summary_part.added",
    item_id: reasoning.id,
    output_index: 0,
    summary_index: 0,
    part: { type: "summary_text", text: "" },
  },
  {
    type: "response.reasoning_summary_text.delta",
    item_id: reasoning.id,
    output_index: 0,
    summary_index: 0,
    delta: "Read the file before editing it.",
  },
  { type: "response.output_item.done", output_index: 0, item: reasoning },
  ...textEvents("msg_fixture_1", 1, "commentary", ["I'll open ", "src/a.ts first."]),
  {
    type: "response.output_item.added",
    output_index: 2,
    item: {
      id: "fc_fixture_1",
      type: "function_call",
      status: "in_progress",
      arguments: "",
      call_id: "call_fixture_1",
      name: "read_file",
    },
  },
  {
    type: "response.function_call_arguments.done",
    item_id: "fc_fixture_1",
    output_index: 2,
    arguments: '{"path":"src/a.ts"}',
  },
  {
    type: "response.output_item.done",
    output_index: 2,
    item: {
      id: "fc_fixture_1",
      type: "function_call",
      status: "completed",
      arguments: '{"path":"src/a.ts"}',
      call_id: "call_fixture_1",
      name: "read_file",
    },
  },
  ...textEvents("msg_fixture_2", 3, "commentary", ["Then the test."]),
  {
    type: "response.completed",
    sequence_number: 99,
    response: response("completed", { usage }),
  },
];

/** A `final_answer` message after the tool round. */
export const phaseFinalAnswerEvents: readonly unknown[] = [
  { type: "response.created", sequence_number: 0, response: response("in_progress") },
  ...textEvents("msg_fixture_3", 0, "final_answer", ["src/a.ts exports ", "nothing."]),
  {
    type: "response.completed",
    sequence_number: 9,
    response: response("completed", { usage }),
  },
];

/** Quota exhausted after the stream opened: a `response.failed` with `insufficient_quota`. */
export const quotaFailedEvents: readonly unknown[] = [
  { type: "response.created", sequence_number: 0, response: response("in_progress") },
  {
    type: "response.failed",
    sequence_number: 1,
    response: response("failed", {
      error: {
        code: "insufficient_quota",
        message: "You exceeded your current quota, please check your plan and billing details.",
      },
    }),
  },
];

/** The same as a bare `error` event. */
export const quotaErrorEvents: readonly unknown[] = [
  { type: "response.created", sequence_number: 0, response: response("in_progress") },
  {
    type: "error",
    sequence_number: 1,
    code: "insufficient_quota",
    message: "You exceeded your current quota, please check your plan and billing details.",
    param: null,
  },
];

/** A plain answer whose usage reports cache writes (GPT-5.6 bills them at 1.25×). */
export const cacheWriteEvents: readonly unknown[] = [
  { type: "response.created", sequence_number: 0, response: response("in_progress") },
  ...textEvents("msg_fixture_4", 0, "final_answer", ["Cached."]),
  {
    type: "response.completed",
    sequence_number: 9,
    response: response("completed", { usage }),
  },
];
