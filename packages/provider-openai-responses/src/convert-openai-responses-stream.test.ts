import type { ProviderEvent } from "@cursor/run";
import {
  ContextOverflowError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RefusalError,
} from "@cursor/run";
import { describe, expect, it } from "vitest";
import { convertOpenAIResponsesStream } from "./convert-openai-responses-stream.js";

async function* from(events: readonly unknown[]): AsyncGenerator<unknown> {
  for (const event of events) yield event;
}

async function collect(events: readonly unknown[]): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of convertOpenAIResponsesStream(from(events))) out.push(event);
  return out;
}

async function failure(
  events: readonly unknown[],
): Promise<{ error: unknown; seen: ProviderEvent[] }> {
  const seen: ProviderEvent[] = [];
  try {
    for await (const event of convertOpenAIResponsesStream(from(events))) seen.push(event);
  } catch (error) {
    return { error, seen };
  }
  throw new Error("expected the stream to fail");
}

const usage = {
  input_tokens: 1500,
  input_tokens_details: { cached_tokens: 1152 },
  output_tokens: 40,
  output_tokens_details: { reasoning_tokens: 16 },
  total_tokens: 1540,
};

const reasoningItem = {
  id: "rs_1",
  type: "reasoning",
  summary: [
    { type: "summary_text", text: "First." },
    { type: "summary_text", text: "Second." },
  ],
  encrypted_content: "enc_abc",
  status: "completed",
};

describe("convertOpenAIResponsesStream", () => {
  it("normalises reasoning, text, parallel tool calls, replay, usage and finish", async () => {
    const events = await collect([
      { type: "response.created", sequence_number: 0, response: { id: "resp_1" } },
      { type: "response.output_item.added", item: { id: "rs_1", type: "reasoning", summary: [] } },
      { type: "response.reasoning_summary_part.added", item_id: "rs_1", summary_index: 0 },
      {
        type: "response.reasoning_summary_text.delta",
        item_id: "rs_1",
        summary_index: 0,
        delta: "First.",
      },
      { type: "response.reasoning_summary_part.added", item_id: "rs_1", summary_index: 1 },
      {
        type: "response.reasoning_summary_text.delta",
        item_id: "rs_1",
        summary_index: 1,
        delta: "Second.",
      },
      { type: "response.output_item.done", output_index: 0, item: reasoningItem },
      { type: "response.output_text.delta", item_id: "msg_1", delta: "Let me " },
      { type: "response.output_text.delta", item_id: "msg_1", delta: "check." },
      {
        type: "response.output_item.done",
        item: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: "Let me check.", annotations: [] }],
        },
      },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", delta: '{"path"' },
      {
        type: "response.output_item.done",
        item: {
          id: "fc_1",
          type: "function_call",
          call_id: "call_1",
          name: "read_file",
          arguments: '{"path": "a.ts"}',
          status: "completed",
        },
      },
      {
        type: "response.output_item.done",
        item: { id: "fc_2", type: "function_call", call_id: "call_2", name: "ls", arguments: "{}" },
      },
      { type: "response.completed", response: { id: "resp_1", status: "completed", usage } },
    ]);
    expect(events).toEqual([
      { type: "reasoning-delta", text: "First." },
      { type: "reasoning-delta", text: "\n\n" },
      { type: "reasoning-delta", text: "Second." },
      { type: "text-delta", text: "Let me " },
      { type: "text-delta", text: "check." },
      {
        type: "tool-call",
        index: 0,
        callId: "call_1",
        name: "read_file",
        arguments: '{"path": "a.ts"}',
      },
      { type: "tool-call", index: 1, callId: "call_2", name: "ls", arguments: "{}" },
      {
        type: "replay",
        state: {
          items: [
            {
              type: "reasoning",
              id: "rs_1",
              summary: [
                { type: "summary_text", text: "First." },
                { type: "summary_text", text: "Second." },
              ],
              encrypted_content: "enc_abc",
            },
            { type: "message", text: "Let me check." },
            { type: "function_call", call_id: "call_1" },
            { type: "function_call", call_id: "call_2" },
          ],
        },
      },
      {
        type: "usage",
        usage: {
          inputTokens: 1500,
          cachedInputTokens: 1152,
          cacheWriteTokens: 0,
          outputTokens: 40,
        },
      },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("sends no replay without encrypted reasoning and counts missing usage as zero", async () => {
    const events = await collect([
      {
        type: "response.output_item.done",
        item: { id: "rs_1", type: "reasoning", summary: [], encrypted_content: null },
      },
      { type: "response.output_text.delta", delta: "hi" },
      { type: "response.completed", response: { status: "completed" } },
    ]);
    expect(events).toEqual([
      { type: "text-delta", text: "hi" },
      {
        type: "usage",
        usage: { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0 },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("maps incomplete responses to length / content-filter", async () => {
    const incomplete = (reason: string) => [
      { type: "response.output_text.delta", delta: "partial" },
      {
        type: "response.incomplete",
        response: { status: "incomplete", incomplete_details: { reason }, usage },
      },
    ];
    expect((await collect(incomplete("max_output_tokens"))).at(-1)).toEqual({
      type: "finish",
      reason: "length",
    });
    expect((await collect(incomplete("content_filter"))).at(-1)).toEqual({
      type: "finish",
      reason: "content-filter",
    });
  });

  it("ignores events after the final one and event types it does not know", async () => {
    const events = await collect([
      { type: "response.web_search_call.searching", item_id: "ws_1" },
      { type: "response.completed", response: { status: "completed" } },
      { type: "response.output_text.delta", delta: "late" },
    ]);
    expect(events.map((event) => event.type)).toEqual(["usage", "finish"]);
  });

  it("throws RefusalError for a refusal", async () => {
    const { error, seen } = await failure([
      { type: "response.refusal.delta", delta: "I can't" },
      {
        type: "response.output_item.done",
        item: {
          type: "message",
          role: "assistant",
          content: [{ type: "refusal", refusal: "I can't help with that." }],
        },
      },
      { type: "response.completed", response: { status: "completed" } },
    ]);
    expect(seen).toEqual([]);
    expect(RefusalError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: "I can't help with that.", retryable: false });
  });

  it("classifies failed responses and error events", async () => {
    const failed = await failure([
      {
        type: "response.failed",
        response: {
          status: "failed",
          error: {
            code: "context_length_exceeded",
            message: "Your input exceeds the context window",
          },
        },
      },
    ]);
    expect(ContextOverflowError.isInstance(failed.error)).toBe(true);
    const errorEvent = await failure([
      { type: "response.output_text.delta", delta: "a" },
      { type: "error", code: "rate_limit_exceeded", message: "Rate limit reached", param: null },
    ]);
    expect(errorEvent.seen).toEqual([{ type: "text-delta", text: "a" }]);
    expect(RateLimitError.isInstance(errorEvent.error)).toBe(true);
  });

  it("throws NetworkError when the stream ends before the response completes", async () => {
    const { error, seen } = await failure([
      { type: "response.output_text.delta", delta: "Half an ans" },
    ]);
    expect(seen).toEqual([{ type: "text-delta", text: "Half an ans" }]);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: "the stream ended before the response completed" });
  });

  it("throws ProviderServerError for a known event with a broken shape", async () => {
    const { error } = await failure([{ type: "response.output_text.delta", delta: 42 }]);
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      message:
        "malformed response.output_text.delta event: delta: Invalid input: expected string, received number",
    });
  });
});
