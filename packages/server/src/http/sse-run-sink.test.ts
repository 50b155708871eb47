import type { ServerResponse } from "node:http";
import { createConversationHead } from "@cursor/projection";
import { HistoryLog, createRuntimeMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { parseSseEvents } from "../client/gateway-client.js";
import { sseRunSink } from "./sse-run-sink.js";
import { SseStream } from "./sse-stream.js";

/** Just enough of a ServerResponse to receive the stream's bytes. */
function response() {
  const chunks: string[] = [];
  const fake = {
    destroyed: false,
    writable: true,
    writeHead: () => fake,
    flushHeaders: () => undefined,
    // Bytes are kept in write order whether corked or not: this test reads them all at once.
    cork: () => undefined,
    uncork: () => undefined,
    write: (chunk: string) => chunks.push(chunk) > 0,
    end: () => {
      fake.writable = false;
    },
  };
  return { raw: fake as unknown as ServerResponse, text: () => chunks.join(""), fake };
}

const head = createConversationHead({
  conversationId: "c1",
  history: new HistoryLog({
    messages: [
      createRuntimeMessage({
        eventId: "turn.m1.0",
        runtimeKind: "user-turn",
        content: [{ type: "text", text: "hi" }],
      }),
    ],
  }),
});
const usage = { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 2 };

describe("sseRunSink", () => {
  it("writes the contract's SSE events; the final head becomes the checkpoint", () => {
    const { raw, text } = response();
    const tokens: unknown[] = [];
    const sink = sseRunSink({
      stream: new SseStream(raw),
      checkpoint: {
        form: "full",
        encode: (event) => {
          tokens.push(event.promptSpecDigest);
          return "TOKEN";
        },
      },
    });
    const headEvent = { type: "head", head, pendingToolCalls: [], promptSpecDigest: "d" } as const;
    sink.event({ type: "run.started", conversationId: "c1", runId: "r1", epoch: 0 });
    sink.event({ type: "reasoning.delta", text: "hm" });
    sink.event({ type: "text.delta", text: "hello" });
    sink.event({ type: "usage", usage });
    sink.event({ type: "warning", warning: { type: "dropped", message: "odd chunk" } });
    sink.event({ ...headEvent, final: false });
    sink.event({ type: "tool.call", callId: "call_1", name: "read_file", arguments: "{}" });
    sink.event({
      type: "retry",
      attempt: 1,
      delayMs: 10,
      error: { code: "rate_limited", message: "slow" },
    });
    sink.event({ type: "compaction.started", reason: "auto" });
    sink.event({ type: "compaction", reason: "auto", epoch: 1 });
    sink.event({ ...headEvent, final: true });
    sink.event({
      type: "run.ended",
      reason: "failed",
      error: { code: "provider_error", message: "down", retryable: true },
    });
    expect(parseSseEvents(text())).toEqual([
      { event: "run.started", data: { conversationId: "c1", runId: "r1", epoch: 0 } },
      { event: "reasoning.delta", data: { text: "hm" } },
      { event: "text.delta", data: { text: "hello" } },
      { event: "usage", data: usage },
      { event: "warning", data: { type: "dropped", message: "odd chunk" } },
      { event: "tool.call", data: { callId: "call_1", name: "read_file", arguments: "{}" } },
      {
        event: "retry",
        data: { attempt: 1, delayMs: 10, error: { code: "rate_limited", message: "slow" } },
      },
      { event: "compaction.started", data: { reason: "auto" } },
      { event: "compaction", data: { reason: "auto", epoch: 1 } },
      { event: "checkpoint", data: { checkpoint: "TOKEN", epoch: 0, messages: 1 } },
      // The contract's error shape: code and message.
      {
        event: "run.ended",
        data: { reason: "failed", error: { code: "provider_error", message: "down" } },
      },
    ]);
    expect(tokens).toEqual(["d"]);
  });

  it("encodes no checkpoint for a client that went away", () => {
    const { raw, fake } = response();
    let encoded = 0;
    const sink = sseRunSink({
      stream: new SseStream(raw),
      checkpoint: {
        form: "full",
        encode: () => {
          encoded += 1;
          return "TOKEN";
        },
      },
    });
    fake.destroyed = true;
    sink.event({ type: "head", head, pendingToolCalls: [], promptSpecDigest: "d", final: true });
    expect(encoded).toBe(0);
  });
});
