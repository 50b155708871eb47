import { createAssistantMessage, createSummaryMessage, HistoryLog } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { abandonedToolCallText } from "./abandoned-tool-calls.js";
import { commitTurnPlan, recordTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import { planSummarize } from "./plan-summarize.js";
import { planUserTurn } from "./plan-user-turn.js";
import { compiledRuntime } from "./testing/compiled-inputs.js";

describe("planSummarize", () => {
  it("asks for a manual compaction after closing abandoned calls", () => {
    let head = createConversationHead({ conversationId: "c1" });
    head = commitTurnPlan({
      head,
      plan: planUserTurn({
        head,
        runId: "r1",
        userTurn: { clientMessageId: "m1", runtime: compiledRuntime("go") },
      }),
    });
    head.history.append(
      createAssistantMessage({
        runId: "r1",
        step: 0,
        toolCalls: [{ index: 0, callId: "call_1", name: "shell", arguments: "{}" }],
      }),
    );
    const plan = planSummarize({ head, runId: "r2" });
    expect(plan).toMatchObject({
      action: "summarize",
      next: "compact",
      reason: "manual",
      newTurns: [],
    });
    expect(plan.initialMessages).toMatchObject([
      { id: "tool-result:call_1", isError: true, content: abandonedToolCallText },
    ]);
  });

  it("has nothing to do on an empty epoch or one holding only the last summary", () => {
    const summarized = createConversationHead({
      conversationId: "c1",
      history: new HistoryLog({
        epoch: 1,
        messages: [createSummaryMessage({ summarizedEpoch: 0, text: "s" })],
      }),
    });
    expect(planSummarize({ head: summarized, runId: "r9" })).toMatchObject({
      next: "done",
      initialMessages: [],
    });
    const head = createConversationHead({ conversationId: "c1" });
    const plan = planSummarize({ head, runId: "r1" });
    expect(plan.next).toBe("done");
    expect(recordTurnPlan({ head, plan })).toMatchObject({ lastRunId: "r1", turns: [] });
  });
});

describe("commitTurnPlan", () => {
  it("refuses a plan made for another epoch", () => {
    const head = createConversationHead({ conversationId: "c1" });
    const plan = planUserTurn({
      head,
      runId: "r1",
      userTurn: { clientMessageId: "m1", runtime: compiledRuntime("go") },
    });
    head.history.startEpoch([]);
    expect(() => commitTurnPlan({ head, plan })).toThrow(/made for epoch 0/);
    expect(head.history.length).toBe(0);
  });
});
