import { describe, expect, it } from "vitest";
import { context, harness, historyWithOneTurn, turn } from "./__fixtures__/loop-fixtures.js";
import { answer, scriptedProvider } from "./__fixtures__/scripted-provider.js";
import { createCompactor } from "./compact-history.js";
import type { PersistEpoch } from "./compact-history.js";
import { ContextOverflowError } from "./errors.js";
import { HistoryLog } from "./history-log.js";
import { createAssistantMessage, createToolResultMessage } from "./message-builders.js";
import { runModelLoop } from "./model-loop.js";
import type { ModelLoopCompaction } from "./model-loop-types.js";

const overflow = () => ({
  error: new ContextOverflowError({ providerId: "scripted", message: "too long", status: 400 }),
});
const byChars = (text: string) => text.length;

function compactionPort(summaries: string[], extra: Partial<ModelLoopCompaction> = {}) {
  const summarizer = scriptedProvider(summaries.map((text) => ({ events: answer(text) })));
  const persisted: Parameters<PersistEpoch>[0][] = [];
  const compaction: ModelLoopCompaction = {
    compact: createCompactor({
      provider: summarizer,
      conversationId: "conv-1",
      model: "model-x",
      instructions: "Summarise the conversation.",
      countTokens: byChars,
      persistEpoch: (epoch) => {
        persisted.push(epoch);
      },
    }),
    ...extra,
  };
  return { summarizer, persisted, compaction };
}

const ids = (history: HistoryLog) => history.messages.map((m) => m.id);

describe("runModelLoop: compaction", () => {
  it("compacts once on context overflow and retries once", async () => {
    const history = historyWithOneTurn();
    const provider = scriptedProvider([overflow(), { events: answer("after") }]);
    const { summarizer, persisted, compaction } = compactionPort(["SUMMARY"]);
    const { commits, events, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")], compaction }));
    expect(outcome.reason).toBe("completed");
    expect(outcome.compactions).toEqual([{ epoch: 1, trigger: "overflow" }]);
    expect(outcome.appended.map((m) => m.id)).toEqual(["runtime:turn.m1", "assistant:r1:0"]);
    expect(persisted.map((p) => [p.epoch, p.reason, p.messages.map((m) => m.id)])).toEqual([
      [1, "auto", ["request-context:ctx.a", "summary:0", "runtime:turn.m1"]],
    ]);
    expect(persisted[0]!.summary.text).toBe("SUMMARY");
    expect(ids(history)).toEqual([
      "request-context:ctx.a",
      "summary:0",
      "runtime:turn.m1",
      "assistant:r1:0",
    ]);
    // The pending messages went into the new epoch; the commit carries only the answer.
    expect(commits.map((c) => [c.epoch, c.messages.map((m) => m.id)])).toEqual([
      [1, ["assistant:r1:0"]],
    ]);
    expect(events.filter((e) => e.type === "compaction")).toEqual([
      { type: "compaction", data: { reason: "auto", epoch: 1 } },
    ]);
    expect(provider.requests[1]!.messages.map((m) => m.id)).toEqual([
      "request-context:ctx.a",
      "summary:0",
      "runtime:turn.m1",
    ]);
    const summarizerRequest = summarizer.requests[0]!;
    expect(summarizerRequest.tools).toEqual([]);
    expect(summarizerRequest.messages.at(-1)?.role).toBe("user");
  });

  it("tells the client a compaction started before the summariser is called", async () => {
    const history = historyWithOneTurn();
    const provider = scriptedProvider([overflow(), { events: answer("after") }]);
    const { compaction } = compactionPort(["SUMMARY"]);
    const { events, options } = harness(history, provider);
    const seenBySummariser: string[][] = [];
    const observed: ModelLoopCompaction = {
      ...compaction,
      compact: (request) => {
        seenBySummariser.push(events.map((event) => event.type));
        return compaction.compact(request);
      },
    };
    await runModelLoop(options({ runId: "r1", pending: [turn("m1")], compaction: observed }));
    expect(seenBySummariser).toEqual([["compaction.started"]]);
    const kinds = events.map((event) => event.type);
    expect(kinds.indexOf("compaction.started")).toBeLessThan(kinds.indexOf("compaction"));
    expect(events.find((event) => event.type === "compaction.started")).toEqual({
      type: "compaction.started",
      data: { reason: "auto" },
    });
  });

  it("fails on a second overflow after the one compaction", async () => {
    const history = historyWithOneTurn();
    const provider = scriptedProvider([overflow(), overflow(), { events: answer("never") }]);
    const { persisted, compaction } = compactionPort(["S1", "S2"]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")], compaction }));
    expect(outcome.reason).toBe("failed");
    expect(outcome.error).toEqual({
      code: "context_overflow",
      message: "too long",
      retryable: false,
    });
    expect(provider.requests).toHaveLength(2);
    expect(persisted).toHaveLength(1);
    expect(commits).toEqual([]);
  });

  it("fails on overflow when no compaction port is given", async () => {
    const provider = scriptedProvider([overflow()]);
    const { options } = harness(historyWithOneTurn(), provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")] }));
    expect(outcome.error?.code).toBe("context_overflow");
  });

  it("a first turn over the budget is refused: no summariser call over nothing, no epoch, no provider call", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([{ events: answer("never") }]);
    const { summarizer, persisted, compaction } = compactionPort(["S"], {
      budgetTokens: 300,
      countTokens: byChars,
    });
    const { commits, events, options } = harness(history, provider);
    const outcome = await runModelLoop(
      options({
        runId: "r1",
        pending: [context("a"), turn("m1", "a very long question ".repeat(50))],
        compaction,
      }),
    );
    expect(outcome.reason).toBe("failed");
    expect(outcome.error?.code).toBe("turn_too_large");
    expect(outcome.error?.message).toMatch(/nothing earlier to compact/);
    expect(outcome.compactions).toEqual([]);
    expect(summarizer.requests).toHaveLength(0);
    expect(persisted).toEqual([]);
    expect(provider.requests).toHaveLength(0);
    expect(commits).toEqual([]);
    expect(history.epoch).toBe(0);
    expect(history.length).toBe(0);
    expect(events.filter((e) => e.type === "compaction")).toEqual([]);
  });

  it("a provider overflow with nothing earlier to compact fails as the overflow, without compacting", async () => {
    const history = new HistoryLog();
    const provider = scriptedProvider([overflow(), { events: answer("never") }]);
    const { summarizer, persisted, compaction } = compactionPort(["S"]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(options({ runId: "r1", pending: [turn("m1")], compaction }));
    expect(outcome.error?.code).toBe("context_overflow");
    expect(summarizer.requests).toHaveLength(0);
    expect(persisted).toEqual([]);
    expect(commits).toEqual([]);
    expect(history.epoch).toBe(0);
  });

  it("compacts before the call when the estimate exceeds the budget, and not otherwise", async () => {
    const small = historyWithOneTurn();
    const within = compactionPort([], { budgetTokens: 100_000, countTokens: byChars });
    const provider = scriptedProvider([{ events: answer("a") }, { events: answer("b") }]);
    const first = await runModelLoop(
      harness(small, provider).options({
        runId: "r1",
        pending: [turn("m1")],
        compaction: within.compaction,
      }),
    );
    expect(first.compactions).toEqual([]);

    const history = historyWithOneTurn();
    const over = compactionPort(["SHORT"], { budgetTokens: 300, countTokens: byChars });
    const outcome = await runModelLoop(
      harness(history, provider).options({
        runId: "r2",
        pending: [context("b"), turn("m2")],
        compaction: over.compaction,
      }),
    );
    expect(outcome.compactions).toEqual([{ epoch: 1, trigger: "budget" }]);
    // The new request context belongs to the current turn: it is not kept ahead of the summary.
    expect(provider.requests[1]!.messages.map((m) => m.id)).toEqual([
      "summary:0",
      "request-context:ctx.b",
      "runtime:turn.m2",
    ]);
    expect(outcome.tokenAnchor).toEqual({ epoch: 1, messageCount: 3, inputTokens: 100 });
  });

  it("starts the estimate from a same-epoch token anchor and ignores a stale one", async () => {
    const run = async (anchor: { epoch: number; messageCount: number; inputTokens: number }) => {
      const history = historyWithOneTurn();
      const { compaction } = compactionPort(["S"], {
        budgetTokens: 10_000,
        countTokens: byChars,
        tokenAnchor: anchor,
      });
      const provider = scriptedProvider([{ events: answer("x") }]);
      const { options } = harness(history, provider);
      return runModelLoop(options({ runId: "r1", pending: [turn("m1")], compaction }));
    };
    expect((await run({ epoch: 0, messageCount: 3, inputTokens: 9_990 })).compactions).toEqual([
      { epoch: 1, trigger: "budget" },
    ]);
    expect((await run({ epoch: 7, messageCount: 3, inputTokens: 9_990 })).compactions).toEqual([]);
  });

  it("keeps the turn's committed initial messages and the open tool round, summarising the rest", async () => {
    const history = historyWithOneTurn();
    const call = (step: number, callId: string) =>
      createAssistantMessage({
        runId: "r1",
        step,
        toolCalls: [{ index: 0, callId, name: "read", arguments: `{"path":"${callId}"}` }],
      });
    const runtime = turn("m1");
    history.append([
      runtime,
      call(0, "c1"),
      createToolResultMessage({ callId: "c1", name: "read", content: "one" }),
      call(1, "c2"),
    ]);
    const provider = scriptedProvider([overflow(), { events: answer("read it") }]);
    const { persisted, compaction } = compactionPort(["S"]);
    const { options } = harness(history, provider);
    const result = createToolResultMessage({ callId: "c2", name: "read", content: "two" });
    const outcome = await runModelLoop(
      options({ runId: "r1", pending: [result], currentInitialMessages: [runtime], compaction }),
    );
    expect(outcome.reason).toBe("completed");
    expect(persisted[0]!.messages.map((m) => m.id)).toEqual([
      "request-context:ctx.a",
      "summary:0",
      "runtime:turn.m1",
      "assistant:r1:1",
      "tool-result:c2",
    ]);
    expect(outcome.assistant?.id).toBe("assistant:r1:2");
  });

  it("keeps the open round's assistant without its replay state: that was produced against the old epoch", async () => {
    const history = historyWithOneTurn();
    const runtime = turn("m1");
    const assistant = createAssistantMessage({
      runId: "r1",
      step: 0,
      text: "Let me look.",
      reasoning: "the file first",
      toolCalls: [{ index: 0, callId: "c1", name: "read", arguments: '{"path":"a"}' }],
      // A thinking signature that binds the history before it (the epoch being replaced).
      replay: { anthropic: { blocks: [{ type: "thinking", signature: "sig_old_epoch" }] } },
    });
    history.append([runtime, assistant]);
    const provider = scriptedProvider([overflow(), { events: answer("read it") }]);
    const { persisted, compaction } = compactionPort(["S"]);
    const { options } = harness(history, provider);
    const result = createToolResultMessage({ callId: "c1", name: "read", content: "one" });
    const outcome = await runModelLoop(
      options({ runId: "r1", pending: [result], currentInitialMessages: [runtime], compaction }),
    );
    expect(outcome.reason).toBe("completed");
    const kept = persisted[0]!.messages.find((m) => m.id === "assistant:r1:0");
    // Everything the history says stays (text, reasoning, calls); the provider state goes.
    expect(kept).toEqual({ ...assistant, replay: {} });
    // The retried call saw the kept assistant without it.
    const sent = provider.requests.at(-1)!.messages.find((m) => m.id === "assistant:r1:0");
    expect(sent).toMatchObject({ role: "assistant", replay: {}, reasoning: "the file first" });
  });

  it("keeps a request context committed with the current turn in place, after the summary", async () => {
    const history = historyWithOneTurn();
    const current = [context("b"), turn("m1")];
    history.append(current);
    const provider = scriptedProvider([overflow(), { events: answer("ok") }]);
    const { persisted, compaction } = compactionPort(["S"]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop(
      options({ runId: "r1", currentInitialMessages: current, compaction }),
    );
    expect(outcome.appended.map((m) => m.id)).toEqual(["assistant:r1:0"]);
    expect(persisted[0]!.messages.map((m) => m.id)).toEqual([
      "summary:0",
      "request-context:ctx.b",
      "runtime:turn.m1",
    ]);
    expect(commits.map((c) => c.messages.map((m) => m.id))).toEqual([["assistant:r1:0"]]);
  });

  it("fails with compaction_failed when the port throws, leaving the head", async () => {
    const history = historyWithOneTurn();
    const head = history.headDigest;
    const provider = scriptedProvider([overflow()]);
    const { options } = harness(history, provider);
    const outcome = await runModelLoop(
      options({
        runId: "r1",
        pending: [turn("m1")],
        compaction: { compact: () => Promise.reject(new Error("store down")) },
      }),
    );
    expect(outcome.error).toEqual({
      code: "compaction_failed",
      message: "store down",
      retryable: false,
    });
    expect(history.headDigest).toBe(head);
  });
});
