import { describe, expect, it, vi } from "vitest";
import { HistoryConflictError, InvalidHistoryError } from "./errors.js";
import * as canonical from "./canonical-json.js";
import {
  HistoryLog,
  chainHeadDigest,
  decodeCanonicalMessage,
  knownMessageDigest,
  messageDigest,
} from "./history-log.js";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  createUserMessage,
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
    expect(log.append(runtime)).toEqual({
      appended: [],
      unchanged: [runtime],
      digests: [],
      headDigest: head,
      length: 2,
    });
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

describe("HistoryLog digests", () => {
  it("check and append return the digests they computed and the head after them", () => {
    const log = new HistoryLog({ messages: [context] });
    const base = log.headDigest;
    const checked = log.check([context, runtime, assistantWithCalls]);
    expect(checked.appended.map((m) => m.id)).toEqual([runtime.id, assistantWithCalls.id]);
    expect(checked.unchanged.map((m) => m.id)).toEqual([context.id]);
    expect(checked.digests).toEqual([messageDigest(runtime), messageDigest(assistantWithCalls)]);
    expect(checked.headDigest).toBe(
      chainHeadDigest(chainHeadDigest(base, checked.digests[0]!), checked.digests[1]!),
    );
    expect(checked.length).toBe(3);
    // check changed nothing; append does what check said.
    expect(log.headDigest).toBe(base);
    const appended = log.append(checked.appended);
    expect(appended.digests).toEqual(checked.digests);
    expect(appended.headDigest).toBe(checked.headDigest);
    expect(log.headDigest).toBe(checked.headDigest);
    expect(log.digests).toEqual([messageDigest(context), ...checked.digests]);
  });

  it("checkEpoch validates a replacement epoch without switching; startEpoch then switches", () => {
    const log = new HistoryLog({ messages: [context, runtime] });
    const head = log.headDigest;
    const next = log.checkEpoch([runtime]);
    expect(next.appended.map((m) => m.id)).toEqual([runtime.id]);
    expect(next.digests).toEqual([messageDigest(runtime)]);
    expect(log.epoch).toBe(0);
    expect(log.headDigest).toBe(head);
    const started = log.startEpoch(next.appended);
    expect(log.epoch).toBe(1);
    expect(started.headDigest).toBe(next.headDigest);
    expect(log.headDigest).toBe(next.headDigest);
    expect(() =>
      log.checkEpoch([createToolResultMessage({ callId: "x", name: "read", content: "" })]),
    ).toThrow(InvalidHistoryError);
  });

  it("hashes each message once: the checked copies carry their digest into append, a new log and a new epoch", () => {
    const hash = vi.spyOn(canonical, "sha256Hex");
    try {
      const log = new HistoryLog();
      const checked = log.check([context, runtime]);
      const afterCheck = hash.mock.calls.length;
      // The check itself hashed both messages (the spy sees the calls).
      expect(
        hash.mock.calls.filter(([input]) => typeof input === "string" && input.startsWith("{")),
      ).toHaveLength(2);
      log.append(checked.appended);
      // Re-appending what the log holds, forking it and starting an epoch that keeps its
      // messages read the digests the log holds.
      log.append(log.messages);
      const fork = log.fork();
      fork.append(
        createUserMessage({
          id: "user_fork",
          content: [{ type: "text", text: "only in the fork" }],
        }),
      );
      log.checkEpoch(log.messages);
      log.startEpoch(log.messages);
      // Only the head chain (one short hash per message and log) and the fork's new message are
      // hashed, never the canonical JSON of a message hashed before.
      const messageHashes = hash.mock.calls
        .slice(afterCheck)
        .filter(([input]) => typeof input === "string" && input.startsWith("{"));
      expect(messageHashes).toHaveLength(1);
      expect(messageHashes[0]![0]).toContain("user_fork");
      expect(checked.appended.every((m) => Object.isFrozen(m))).toBe(true);
    } finally {
      hash.mockRestore();
    }
  });

  it("decodes stored canonical bytes once and refuses bytes that are not what the digest names", () => {
    const bytes = new TextEncoder().encode(canonical.canonicalJson(runtime));
    const digest = messageDigest(runtime);
    const decoded = decodeCanonicalMessage({ bytes, digest });
    expect(decoded).toEqual(runtime);
    expect(Object.isFrozen(decoded)).toBe(true);
    expect(new HistoryLog({ messages: [decoded] }).digestAt(0)).toBe(digest);
    expect(() => decodeCanonicalMessage({ bytes, digest: "0".repeat(64) })).toThrow(
      /does not match its content/,
    );
    const pretty = new TextEncoder().encode(JSON.stringify(runtime, null, 2));
    expect(() =>
      decodeCanonicalMessage({ bytes: pretty, digest: canonical.sha256Hex(pretty) }),
    ).toThrow(/not a valid canonical message/);
    const junk = new TextEncoder().encode("{not json");
    expect(() =>
      decodeCanonicalMessage({ bytes: junk, digest: canonical.sha256Hex(junk) }),
    ).toThrow(/is not JSON/);
  });

  it("knows the digest of a message on its way in, and hands it over to the log that commits it", () => {
    const log = new HistoryLog({ messages: [context] });
    const checked = log.check([runtime]);
    // Validated, not committed: known (the commit will not hash it again).
    expect(knownMessageDigest(checked.appended[0])).toBe(checked.digests[0]);
    log.append(checked.appended);
    // Committed: the log holds the digest, packed; no memo entry per held message is left.
    expect(log.messages.map((message) => knownMessageDigest(message))).toEqual([
      undefined,
      undefined,
    ]);
    expect(log.digestAt(1)).toBe(checked.digests[0]);
    // The caller's objects are not the log's: they stay unknown (they could still change).
    expect(knownMessageDigest(context)).toBeUndefined();
    expect(knownMessageDigest(structuredClone(log.messages[0]))).toBeUndefined();
    expect(knownMessageDigest("text")).toBeUndefined();
    expect(knownMessageDigest(null)).toBeUndefined();
    const bytes = new TextEncoder().encode(canonical.canonicalJson(runtime));
    const decoded = decodeCanonicalMessage({ bytes, digest: messageDigest(runtime) });
    expect(knownMessageDigest(decoded)).toBe(messageDigest(runtime));
    // A checked epoch's copies stay known until the epoch is started with them.
    const epoch = log.checkEpoch([runtime]);
    expect(knownMessageDigest(epoch.appended[0])).toBe(epoch.digests[0]);
    log.startEpoch(epoch.appended);
    expect(knownMessageDigest(log.messages[0])).toBeUndefined();
    expect(log.digestAt(0)).toBe(epoch.digests[0]);
  });

  it("holds digests packed and gives back the exact hex: digestAt, digests, digestRange, a new epoch", () => {
    const answer = createToolResultMessage({ callId: "call_a", name: "read", content: "a" });
    const answerB = createToolResultMessage({ callId: "call_b", name: "read", content: "b" });
    const input = [context, runtime, assistantWithCalls, answerB, answer];
    const log = new HistoryLog({ messages: input });
    // Hashed afresh from copies: nothing the log memoised.
    const expected = input.map((message) =>
      canonical.sha256Hex(canonical.canonicalJson(structuredClone(message))),
    );
    expect(log.digests).toEqual(expected);
    expect(input.map((_, index) => log.digestAt(index))).toEqual(expected);
    expect(log.digestAt(input.length)).toBeUndefined();
    expect(log.digestRange(2)).toEqual(expected.slice(2));
    expect(log.digestRange(1, 3)).toEqual(expected.slice(1, 3));
    expect(log.messages.map((message) => messageDigest(message))).toEqual(expected);
    // A new epoch starts a new table: only the replacement's digests, the kept one still known.
    log.startEpoch([log.messages[1]!]);
    expect(log.digests).toEqual([expected[1]]);
    expect(log.digestAt(1)).toBeUndefined();
    expect(log.digestAt(0)).toBe(expected[1]);
  });

  it("forks into a log with the same messages, digests and head that then moves on its own", () => {
    const log = new HistoryLog({ messages: [context, runtime, assistantWithCalls] });
    const fork = log.fork();
    expect(fork.epoch).toBe(log.epoch);
    expect(fork.headDigest).toBe(log.headDigest);
    expect(fork.digests).toEqual(log.digests);
    // The very objects, and the same indexes and pending calls.
    fork.messages.forEach((message, index) => expect(message).toBe(log.messages[index]));
    expect(fork.get(runtime.id)).toBe(log.get(runtime.id));
    expect(fork.findByEventId(runtime.eventId)).toBe(log.findByEventId(runtime.eventId));
    expect(fork.pendingToolCalls()).toEqual(log.pendingToolCalls());
    const [call] = assistantWithCalls.toolCalls;
    const answer = createToolResultMessage({
      callId: call!.callId,
      name: call!.name,
      content: "x",
    });
    fork.append(answer);
    expect(fork.length).toBe(4);
    expect(log.length).toBe(3);
    expect(log.pendingToolCalls()).toHaveLength(assistantWithCalls.toolCalls.length);
    expect(fork.headDigest).toBe(
      new HistoryLog({ messages: [context, runtime, assistantWithCalls, answer] }).headDigest,
    );
    // What the fork committed stays known for the log that commits it for good.
    const [forked] = fork.messages.slice(3);
    expect(knownMessageDigest(forked)).toBe(fork.digestAt(3));
    log.append(forked);
    expect(log.messages[3]).toBe(forked);
    expect(log.headDigest).toBe(fork.headDigest);
  });

  it("a new log given another log's messages validates them as any input (its own copies)", () => {
    const first = new HistoryLog({ messages: [context, runtime] });
    const second = new HistoryLog({ messages: first.messages });
    expect(second.digests).toEqual(first.digests);
    expect(second.headDigest).toBe(first.headDigest);
    expect(second.messages[0]).toEqual(first.messages[0]);
  });

  it("refuses a reused tool call id whether its call is pending or answered", () => {
    const answer = (callId: string) =>
      createToolResultMessage({ callId, name: "read", content: callId });
    const log = new HistoryLog({ messages: [runtime, assistantWithCalls, answer("call_a")] });
    const reuse = (callId: string) =>
      createAssistantMessage({
        runId: "r2",
        step: 0,
        toolCalls: [{ index: 0, callId, name: "read", arguments: "{}" }],
      });
    // call_b is still pending: nothing but its result may come.
    expect(() => log.check([answer("call_b"), reuse("call_b")])).toThrow(/reuses tool call id/);
    log.append(answer("call_b"));
    expect(() => log.check([reuse("call_a")])).toThrow(/reuses tool call id call_a/);
    expect(() => log.check([reuse("call_b")])).toThrow(/reuses tool call id call_b/);
    expect(log.check([reuse("call_c")]).appended).toHaveLength(1);
    // A new epoch has its own calls.
    log.startEpoch([runtime]);
    expect(log.check([reuse("call_a")]).appended).toHaveLength(1);
  });

  it("keeps copies that own their data: deep-frozen, equal, and sharing nothing with the input", () => {
    const input = structuredClone(assistantWithCalls);
    const [kept] = new HistoryLog({ messages: [input] }).messages;
    expect(kept).toEqual(input);
    expect(kept).not.toBe(input);
    if (kept?.kind !== "assistant") throw new Error("expected the assistant message");
    expect(kept.toolCalls).not.toBe(input.toolCalls);
    expect(Object.isFrozen(kept.toolCalls[0])).toBe(true);
    // Changing the input afterwards changes nothing kept.
    input.toolCalls[0]!.arguments = "{}";
    expect(kept.toolCalls[0]!.arguments).toBe('{"path":"b"}');
  });

  it("keeps a key named __proto__ as data, whatever its value", () => {
    const input = createAssistantMessage({
      runId: "r9",
      step: 0,
      replay: JSON.parse('{"p":{"__proto__":{},"x":{"__proto__":[1]}}}') as Record<string, never>,
    });
    const [kept] = new HistoryLog({ messages: [input] }).messages;
    expect(canonical.canonicalJson(kept)).toBe(canonical.canonicalJson(input));
    if (kept?.kind !== "assistant") throw new Error("expected the assistant message");
    const bag = kept.replay.p as Record<string, unknown>;
    expect(Object.getPrototypeOf(bag)).toBe(Object.prototype);
    expect(Object.keys(bag)).toEqual(["__proto__", "x"]);
    expect(Object.isFrozen(bag)).toBe(true);
  });
});
