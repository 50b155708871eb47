import { describe, expect, it } from "vitest";
import { NetworkError, ProviderServerError, RefusalError } from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import { toolRoundEvents } from "./__fixtures__/anthropic-stream-events.js";
import { convertAnthropicStream } from "./convert-anthropic-stream.js";

async function* fromArray(events: readonly unknown[]): AsyncGenerator<unknown> {
  for (const event of events) yield event;
}

async function collect(events: readonly unknown[]): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of convertAnthropicStream(fromArray(events))) out.push(event);
  return out;
}

async function collectUntilError(
  events: readonly unknown[],
): Promise<{ events: ProviderEvent[]; error: unknown }> {
  const out: ProviderEvent[] = [];
  try {
    for await (const event of convertAnthropicStream(fromArray(events))) out.push(event);
  } catch (error) {
    return { events: out, error };
  }
  return { events: out, error: undefined };
}

const textAnswer = (stopReason: string, usage: object = { output_tokens: 5 }) => [
  { type: "message_start", message: { usage: { input_tokens: 10, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: stopReason }, usage },
  { type: "message_stop" },
];

describe("convertAnthropicStream", () => {
  it("normalises thinking, text, parallel tool calls, replay state and usage", async () => {
    expect(await collect(toolRoundEvents)).toEqual([
      { type: "reasoning-delta", text: "Look at " },
      { type: "reasoning-delta", text: "the files." },
      { type: "text-delta", text: "Checking" },
      { type: "text-delta", text: " now." },
      {
        type: "tool-call",
        index: 0,
        callId: "toolu_1",
        name: "read_file",
        arguments: '{"path": "a.ts"}',
      },
      { type: "tool-call", index: 1, callId: "toolu_2", name: "list_dir", arguments: "{}" },
      {
        type: "replay",
        state: {
          blocks: [
            { type: "thinking", thinking: "Look at the files.", signature: "sig-abc" },
            { type: "redacted_thinking", data: "opaque" },
          ],
        },
      },
      {
        type: "usage",
        usage: {
          inputTokens: 3212,
          cachedInputTokens: 3000,
          cacheWriteTokens: 200,
          outputTokens: 57,
        },
      },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("emits no replay event when the message has no thinking, and counts missing usage as zero", async () => {
    expect(await collect(textAnswer("end_turn"))).toEqual([
      { type: "text-delta", text: "Hi" },
      {
        type: "usage",
        usage: { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5 },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("lets input counts in message_delta override those of message_start", async () => {
    const events = await collect(
      textAnswer("max_tokens", { output_tokens: 9, input_tokens: 11, cache_read_input_tokens: 4 }),
    );
    expect(events.slice(-2)).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 15, cachedInputTokens: 4, cacheWriteTokens: 0, outputTokens: 9 },
      },
      { type: "finish", reason: "length" },
    ]);
  });

  it("uses the start event's input when a tool_use block has no deltas", async () => {
    const events = await collect([
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_9", name: "f", input: { b: 1, a: 2 } },
      },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ]);
    expect(events[0]).toEqual({
      type: "tool-call",
      index: 0,
      callId: "toolu_9",
      name: "f",
      arguments: '{"b":1,"a":2}',
    });
  });

  it("ignores unknown events, blocks and deltas", async () => {
    const events = await collect([
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "future_event", payload: 1 },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: "{}" },
      },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "citations_delta", citation: {} } },
      { type: "content_block_stop", index: 1 },
      { type: "message_delta", delta: { stop_reason: "pause_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ]);
    expect(events).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
      },
      { type: "finish", reason: "other" },
    ]);
  });

  it("throws RefusalError after reporting usage when the model refuses", async () => {
    const { events, error } = await collectUntilError(textAnswer("refusal"));
    expect(events.map((event) => event.type)).toEqual(["text-delta", "usage"]);
    expect(RefusalError.isInstance(error)).toBe(true);
    expect((error as RefusalError).retryable).toBe(false);
  });

  it("throws NetworkError when the stream ends before message_stop", async () => {
    const { events, error } = await collectUntilError(toolRoundEvents.slice(0, 12));
    expect(events.map((event) => event.type)).toEqual([
      "reasoning-delta",
      "reasoning-delta",
      "text-delta",
      "text-delta",
    ]);
    expect(NetworkError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("the anthropic stream ended before message_stop");
  });

  it("throws ProviderServerError on a malformed event", async () => {
    const { error } = await collectUntilError([
      { type: "message_start", message: { usage: { input_tokens: 1 } } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x" } },
    ]);
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("malformed anthropic stream: delta for unopened block 0");
    const second = await collectUntilError([{ type: "content_block_stop" }]);
    expect(ProviderServerError.isInstance(second.error)).toBe(true);
    const third = await collectUntilError(["not an event"]);
    expect(ProviderServerError.isInstance(third.error)).toBe(true);
  });
});
