import { describe, expect, it } from "vitest";
import { HistoryConflictError, InvalidHistoryError } from "./errors.js";
import { HistoryLog, messageDigest } from "./history-log.js";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
} from "./message-builders.js";

const digestA = "a".repeat(64);
const context = createRequestContextMessage({
  eventId: "ctx.m1.aaaa",
  digest: digestA,
  text: "rules",
});
const runtime = createRuntimeMessage({
  eventId: "turn.m1.bbbb",
  runtimeKind: "user-turn",
  content: [{ type: "text", text: "hello" }],
});
const assistantWithCalls = createAssistantMessage({
  runId: "r1",
  step: 0,
  toolCalls: [
    { index: 1, callId: "call_b", name: "read", arguments: '{"path":"b"}' },
    { index: 0, callId: "call_a", name: "read", arguments: '{"path":"a"}' },
  ],
});

describe("HistoryLog", () => {
  it("appends in order and chains the head digest", () => {
    const log = new HistoryLog();
    const before = log.headDigest;
    log.append([context, runtime]);
    expect(log.messages.map((m) => m.id)).toEqual([
      "request-context:ctx.m1.aaaa",
      "runtime:turn.m1.bbbb",
    ]);
    expect(log.headDigest).not.toBe(before);
    const replayed = new HistoryLog({ messages: [context, runtime] });
    expect(replayed.headDigest).toBe(log.headDigest);
    expect(log.digestAt(0)).toBe(messageDigest(context));
  });

  it("treats an identical re-append as a no-op and a different one as a conflict", () => {
    const log = new HistoryLog({ messages: [context, runtime] });
    const head = log.headDigest;
    expect(log.append(runtime)).toEqual({ appended: [], unchanged: [runtime] });
    expect(log.headDigest).toBe(head);
    const edited = { ...runtime, content: [{ type: "text", text: "hello!" }] };
    expect(() => log.append(edited)).toThrow(HistoryConflictError);
    const sameEvent = { ...runtime, id: "runtime:other" };
    expect(() => log.append(sameEvent)).toThrow(/event turn.m1.bbbb already exists/);
    expect(log.length).toBe(2);
  });

  it("appends a batch atomically", () => {
    const log = new HistoryLog({ messages: [context] });
    const bad = { ...runtime, role: "assistant" };
    expect(() => log.append([runtime, bad])).toThrow(InvalidHistoryError);
    expect(log.length).toBe(1);
  });

  it("does not mutate or keep a reference to its input, and freezes what it stores", () => {
    const input = structuredClone(runtime);
    const log = new HistoryLog({ messages: [input] });
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(log.messages[0])).toBe(true);
  });

  it("keeps tool rounds well formed", () => {
    const log = new HistoryLog({ messages: [runtime, assistantWithCalls] });
    expect(log.pendingToolCalls().map((c) => c.callId)).toEqual(["call_b", "call_a"]);
    expect(() =>
      log.append(
        createRuntimeMessage({
          eventId: "inject.x",
          runtimeKind: "injected-context",
          content: [{ type: "text", text: "x" }],
        }),
      ),
    ).toThrow(/while tool calls are pending/);
    expect(() =>
      log.append(createToolResultMessage({ callId: "call_z", name: "read", content: "" })),
    ).toThrow(/unknown or already answered/);
    log.append(createToolResultMessage({ callId: "call_a", name: "read", content: "A" }));
    expect(() =>
      log.append(createToolResultMessage({ callId: "call_b", name: "write", content: "B" })),
    ).toThrow(/names tool write/);
    log.append(createToolResultMessage({ callId: "call_b", name: "read", content: "B" }));
    expect(log.pendingToolCalls()).toEqual([]);
    expect(() =>
      log.append(
        createAssistantMessage({
          runId: "r1",
          step: 1,
          toolCalls: [{ index: 0, callId: "call_a", name: "read", arguments: "{}" }],
        }),
      ),
    ).toThrow(/reuses tool call id/);
  });

  it("finds the latest request context and messages by event id", () => {
    const log = new HistoryLog({ messages: [context, runtime] });
    expect(log.latestRequestContext()?.id).toBe(context.id);
    expect(log.findByEventId("turn.m1.bbbb")?.id).toBe(runtime.id);
  });

  it("starts a new epoch only through startEpoch", () => {
    const log = new HistoryLog({ messages: [context, runtime] });
    log.startEpoch([context]);
    expect(log.epoch).toBe(1);
    expect(log.messages.map((m) => m.id)).toEqual([context.id]);
    expect(log.headDigest).toBe(new HistoryLog({ epoch: 1, messages: [context] }).headDigest);
  });
});
