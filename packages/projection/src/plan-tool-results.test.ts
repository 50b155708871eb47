import { createAssistantMessage, createToolResultMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { commitTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";
import { planToolResults } from "./plan-tool-results.js";
import { planUserTurn } from "./plan-user-turn.js";
import { ProjectionConflictError, ToolResultConflictError } from "./projection-errors.js";
import { compiledContext, compiledRuntime } from "./testing/compiled-inputs.js";

function awaitingHead(): ConversationHead {
  let head = createConversationHead({ conversationId: "c1" });
  const plan = planUserTurn({
    head,
    runId: "r1",
    userTurn: {
      clientMessageId: "m1",
      requestContext: compiledContext("rules"),
      runtime: compiledRuntime("read both"),
    },
  });
  head = commitTurnPlan({ head, plan });
  head.history.append(
    createAssistantMessage({
      runId: "r1",
      step: 0,
      toolCalls: [
        { index: 0, callId: "call_a", name: "read_file", arguments: '{"path":"a"}' },
        { index: 1, callId: "call_b", name: "read_file", arguments: '{"path":"b"}' },
      ],
    }),
  );
  return head;
}

describe("planToolResults", () => {
  it("appends results in call order and calls the model once every call has one", () => {
    const head = awaitingHead();
    const plan = planToolResults({
      head,
      runId: "r1",
      results: [
        { callId: "call_b", output: "B" },
        { callId: "call_a", output: "A", isError: true },
      ],
    });
    expect(plan.initialMessages).toEqual([
      createToolResultMessage({ callId: "call_a", name: "read_file", content: "A", isError: true }),
      createToolResultMessage({ callId: "call_b", name: "read_file", content: "B" }),
    ]);
    expect(plan).toMatchObject({ action: "tool-results", next: "call-model", retry: false });
    expect(plan).not.toHaveProperty("pendingToolCalls");
    expect(plan.next === "call-model" && plan.currentInitialMessages.map((m) => m.kind)).toEqual([
      "request-context",
      "runtime",
    ]);
    expect(plan.turn?.runId).toBe("r1");
  });

  it("waits for the missing results without calling the model", () => {
    const head = awaitingHead();
    const plan = planToolResults({
      head,
      runId: "r1",
      results: [{ callId: "call_b", output: "B" }],
    });
    expect(plan.appended.map((m) => m.id)).toEqual(["tool-result:call_b"]);
    expect(plan).toMatchObject({ next: "await-tools", retry: false });
    expect(plan.next === "await-tools" && plan.pendingToolCalls.map((c) => c.callId)).toEqual([
      "call_a",
    ]);
  });

  it("treats an identical re-send as a no-op and a changed one as a conflict", () => {
    let head = awaitingHead();
    const partial = planToolResults({
      head,
      runId: "r1",
      results: [{ callId: "call_b", output: "B" }],
    });
    head = commitTurnPlan({ head, plan: partial });
    const resend = planToolResults({
      head,
      runId: "r1",
      results: [{ callId: "call_b", output: "B" }],
    });
    expect(resend.appended).toEqual([]);
    expect(resend).toMatchObject({ next: "await-tools", retry: true });
    expect(resend.next === "await-tools" && resend.pendingToolCalls.map((c) => c.callId)).toEqual([
      "call_a",
    ]);
    expect(() =>
      planToolResults({ head, runId: "r1", results: [{ callId: "call_b", output: "changed" }] }),
    ).toThrow(ToolResultConflictError);
  });

  it("reports a re-send after the run completed as already completed", () => {
    let head = awaitingHead();
    const results = [
      { callId: "call_a", output: "A" },
      { callId: "call_b", output: "B" },
    ];
    head = commitTurnPlan({ head, plan: planToolResults({ head, runId: "r1", results }) });
    const beforeAnswer = planToolResults({ head, runId: "r1", results });
    expect(beforeAnswer).toMatchObject({ next: "call-model", retry: true });
    head.history.append(createAssistantMessage({ runId: "r1", step: 1, text: "both read" }));
    const afterAnswer = planToolResults({ head, runId: "r1", results });
    expect(afterAnswer).toMatchObject({ next: "done", retry: true });
    expect(afterAnswer.appended).toEqual([]);
  });

  it("rejects results for calls the run is not waiting for", () => {
    const head = awaitingHead();
    let caught: unknown;
    try {
      planToolResults({
        head,
        runId: "r1",
        results: [
          { callId: "call_a", output: "A" },
          { callId: "call_x", output: "X" },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(ToolResultConflictError.isInstance(caught)).toBe(true);
    expect(ProjectionConflictError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      name: "ToolResultConflictError",
      conversationId: "c1",
      runId: "r1",
      unknownCallIds: ["call_x"],
      changedCallIds: [],
    });
    // Calls of another run are unknown to this one.
    expect(() =>
      planToolResults({ head, runId: "r2", results: [{ callId: "call_a", output: "A" }] }),
    ).toThrow(/run r2 is not waiting for tool calls call_a/);
  });
});
