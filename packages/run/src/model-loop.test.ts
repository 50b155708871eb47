import { describe, expect, it } from "vitest";
import { answer, scriptedProvider } from "./__fixtures__/scripted-provider.js";
import { context, harness, historyWithOneTurn, turn } from "./__fixtures__/loop-fixtures.js";
import { AuthenticationError, ProviderServerError } from "./errors.js";
import { HistoryLog } from "./history-log.js";
import { createToolResultMessage } from "./message-builders.js";
import { runModelLoop } from "./model-loop.js";
import type { ProviderEvent } from "./provider-adapter.js";

const usage = { inputTokens: 120, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 9 };
const toolCallEvents: ProviderEvent[] = [
  { type: "reasoning-delta", text: "need files" },
  { type: "tool-call", index: 1, callId: "c2", name: "read", arguments: '{"path":"b"}' },
  { type: "tool-call", index: 0, callId: "c1", name: "read", arguments: '{ "path" : "a" }' },
  { type: "replay", state: { encrypted: "old" } },
  { type: "replay", state: { encrypted: "new" } },
  { type: "usage", usage },
  { type: "finish", reason: "tool-calls" },
];
const results = [
  createToolResultMessage({ callId: "c2", name: "read", content: "B" }),
  createToolResultMessage({ callId: "c1", name: "read", content: "A" }),
];

describe("runModelLoop: tool loop", () => {
  it("ends awaiting-tools, then continues with the results as a prefix-extending request", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([{ events: toolCallEvents }, { events: answer("done") }]);
    const { commits, events, options } = harness(history, provider);
    const first = await runModelLoop(options({ runId: "r1", pending: [context("a"), turn("m1")] }));

    expect(first.reason).toBe("awaiting-tools");
    expect(first.appended.map((m) => m.id)).toEqual([
      "request-context:ctx.a",
      "runtime:turn.m1",
      "assistant:r1:0",
    ]);
    expect(first.assistant).toMatchObject({
      reasoning: "need files",
      toolCalls: [
        { index: 0, callId: "c1", name: "read", arguments: '{ "path" : "a" }' },
        { index: 1, callId: "c2", name: "read", arguments: '{"path":"b"}' },
      ],
      replay: { scripted: { encrypted: "new" } },
    });
    expect(commits).toHaveLength(1);
    expect(commits[0]).toMatchObject({ conversationId: "conv-1", runId: "r1", epoch: 0 });
    expect(commits[0]!.messages.map((m) => m.id)).toEqual(first.appended.map((m) => m.id));
    expect(history.messages.map((m) => m.id)).toEqual(first.appended.map((m) => m.id));
    expect(events).toEqual([
      { type: "reasoning.delta", data: { text: "need files" } },
      { type: "usage", data: usage },
      { type: "tool.call", data: { callId: "c1", name: "read", arguments: '{ "path" : "a" }' } },
      { type: "tool.call", data: { callId: "c2", name: "read", arguments: '{"path":"b"}' } },
    ]);
    expect(first.tokenAnchor).toEqual({ epoch: 0, messageCount: 2, inputTokens: 120 });

    const second = await runModelLoop(options({ runId: "r1", pending: results }));
    expect(second.reason).toBe("completed");
    expect(second.appended.map((m) => m.id)).toEqual([
      "tool-result:c2",
      "tool-result:c1",
      "assistant:r1:1",
    ]);
    const [request1, request2] = provider.requests;
    expect(request2!.messages.map((m) => m.id)).toEqual([
      "request-context:ctx.a",
      "runtime:turn.m1",
      "assistant:r1:0",
      "tool-result:c1",
      "tool-result:c2",
    ]);
    expect(request2!.messages.slice(0, request1!.messages.length)).toEqual(request1!.messages);
    expect(Object.isFrozen(request2!.messages)).toBe(true);
    expect(commits).toHaveLength(2);
    expect(history.pendingToolCalls()).toEqual([]);
  });

  it("commits partial tool results and keeps waiting without calling the model", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([{ events: toolCallEvents }]);
    const { commits, options } = harness(history, provider);
    await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    const partial = await runModelLoop(options({ runId: "r1", pending: [results[0]!] }));
    expect(partial).toEqual({
      reason: "awaiting-tools",
      appended: [history.get("tool-result:c2")],
      compactions: [],
    });
    expect(provider.requests).toHaveLength(1);
    expect(commits.map((c) => c.messages.map((m) => m.id))).toEqual([
      ["runtime:turn.m1", "assistant:r1:0"],
      ["tool-result:c2"],
    ]);
  });

  it("numbers assistant messages after the run's existing ones and honours maxSteps", async () => {
    const history = historyWithOneTurn();
    const provider = scriptedProvider([{ events: answer("again") }]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r0", pending: [turn("inject")] }));
    expect(outcome.assistant?.id).toBe("assistant:r0:1");
    const head = history.headDigest;
    const limited = await runModelLoop(
      options({ runId: "r0", pending: [turn("again")], maxSteps: 2 }),
    );
    expect(limited.reason).toBe("failed");
    expect(limited.error?.code).toBe("max_steps");
    expect(history.headDigest).toBe(head);
    expect(commits).toHaveLength(1);
  });
});

describe("runModelLoop: failures commit nothing", () => {
  it("fails without retrying once a delta reached the client", async () => {
    const history = historyWithOneTurn();
    const head = history.headDigest;
    const provider = scriptedProvider([
      {
        events: [{ type: "text-delta", text: "partial" }],
        error: new ProviderServerError({ providerId: "scripted", message: "boom", status: 500 }),
      },
      { events: answer("never") },
    ]);
    const { commits, events, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(outcome).toEqual({
      reason: "failed",
      error: { code: "provider_error", message: "boom" },
      appended: [],
      compactions: [],
    });
    expect(provider.requests).toHaveLength(1);
    expect(events).toEqual([{ type: "text.delta", data: { text: "partial" } }]);
    expect(commits).toEqual([]);
    expect(history.headDigest).toBe(head);
    expect(history.has("runtime:turn.m1")).toBe(false);
  });

  it("does not retry a non-retryable error", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([
      { error: new AuthenticationError({ providerId: "scripted", message: "bad key" }) },
    ]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(outcome.error).toEqual({ code: "provider_authentication", message: "bad key" });
    expect(commits).toEqual([]);
    expect(history.length).toBe(0);
  });

  it("rejects an invalid assistant message and a refused commit without touching the head", async () => {
    const history = new HistoryLog();
    const duplicate: ProviderEvent[] = [
      { type: "tool-call", index: 0, callId: "c1", name: "read", arguments: "{}" },
      { type: "tool-call", index: 1, callId: "c1", name: "read", arguments: "{}" },
      { type: "finish", reason: "tool-calls" },
    ];
    const provider = scriptedProvider([{ events: duplicate }, { events: answer("ok") }]);
    const { options } = harness(history, provider);
    const invalid = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(invalid.error?.code).toBe("invalid_history");
    const refused = await runModelLoop({
      ...options({ runId: "r1", pending: [turn("m1")] }),
      commit: () => {
        throw new Error("disk full");
      },
    });
    expect(refused).toMatchObject({ reason: "failed", error: { message: "disk full" } });
    expect(history.length).toBe(0);
  });
});

describe("runModelLoop: stream warnings", () => {
  it("passes a provider's stream warning on as a `warning` event without failing the call", async () => {
    const history = new HistoryLog();
    const warning = {
      type: "unsupported",
      message: "unknown reasoning shape in delta.reasoning; ignored",
      path: "choices[0].delta.reasoning",
    } as const;
    const provider = scriptedProvider([
      { events: [{ type: "warning", warning }, ...answer("fine")] },
    ]);
    const { events, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(outcome.reason).toBe("completed");
    expect(outcome.assistant?.text).toBe("fine");
    expect(events[0]).toEqual({ type: "warning", data: warning });
  });

  it("a warning is not output: a failure after it is still retried", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([
      {
        events: [{ type: "warning", warning: { type: "other", message: "odd chunk" } }],
        error: new ProviderServerError({ providerId: "scripted", message: "overloaded" }),
      },
      { events: answer("second try") },
    ]);
    const { options } = harness(history, provider);
    const outcome = await runModelLoop({
      ...options({ runId: "r1", pending: [turn("m1")] }),
      retry: { baseDelayMs: 0, random: () => 0 },
    });
    expect(outcome.reason).toBe("completed");
    expect(outcome.assistant?.text).toBe("second try");
  });
});

describe("runModelLoop: a thinking-only reply", () => {
  it("is stored as produced (no text, its reasoning and replay state), once, and ends the turn", async () => {
    // Decided here, for every provider: the history keeps what the provider produced; how a
    // provider renders such a message later (Anthropic leaves it out) is its own, pure rule.
    const history = new HistoryLog();
    const provider = scriptedProvider([
      {
        events: [
          { type: "reasoning-delta", text: "A long plan that ran out of " },
          {
            type: "replay",
            state: { blocks: [{ type: "thinking", thinking: "t", signature: "s" }] },
          },
          { type: "usage", usage },
          { type: "finish", reason: "length" },
        ],
      },
    ]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(outcome).toMatchObject({ reason: "completed", finishReason: "length" });
    expect(outcome.assistant).toEqual({
      kind: "assistant",
      id: "assistant:r1:0",
      role: "assistant",
      origin: "assistant",
      text: "",
      reasoning: "A long plan that ran out of ",
      toolCalls: [],
      replay: { scripted: { blocks: [{ type: "thinking", thinking: "t", signature: "s" }] } },
    });
    expect(commits).toHaveLength(1);
    expect(history.messages.at(-1)).toEqual(outcome.assistant);
  });
});
