import { createAssistantMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { commitTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";
import { planBackgroundCompletions, planInjectedContext } from "./plan-runtime-events.js";
import { planUserTurn } from "./plan-user-turn.js";
import { ProjectionConflictError, RunIdMismatchError } from "./projection-errors.js";
import { compiledContext, compiledRuntime } from "./testing/compiled-inputs.js";

function answeredHead(): ConversationHead {
  let head = createConversationHead({ conversationId: "c1" });
  const plan = planUserTurn({
    head,
    runId: "r1",
    userTurn: {
      clientMessageId: "m1",
      requestContext: compiledContext("rules"),
      runtime: compiledRuntime("start the build"),
    },
  });
  head = commitTurnPlan({ head, plan });
  head.history.append(createAssistantMessage({ runId: "r1", step: 0, text: "started" }));
  return head;
}

const shellDone = { kind: "shell", taskId: "t1", runtime: compiledRuntime("build finished") };
const agentDone = {
  kind: "subagent",
  taskId: "t2",
  toolCallId: "call_9",
  runtime: compiledRuntime("review done"),
};

describe("planBackgroundCompletions", () => {
  it("appends one runtime message per completion and no request context", () => {
    const head = answeredHead();
    const plan = planBackgroundCompletions({
      head,
      runId: "r2",
      completions: [shellDone, agentDone],
    });
    expect(plan.initialMessages.map((m) => m.id)).toEqual([
      "runtime:bg.shell.t1.-",
      "runtime:bg.subagent.t2.call_9",
    ]);
    expect(plan.initialMessages.every((m) => m.kind === "runtime")).toBe(true);
    expect(plan.initialMessages.map((m) => m.kind === "runtime" && m.runtimeKind)).toEqual([
      "background-completion",
      "background-completion",
    ]);
    expect(plan.newTurns).toEqual([
      {
        clientMessageId: "t1",
        eventId: "bg.shell.t1.-",
        runId: "r2",
        messageIds: ["runtime:bg.shell.t1.-"],
      },
      {
        clientMessageId: "t2",
        eventId: "bg.subagent.t2.call_9",
        runId: "r2",
        messageIds: ["runtime:bg.subagent.t2.call_9"],
      },
    ]);
    expect(plan.next).toBe("call-model");
  });

  it("suppresses delivered completions and skips the model when all were delivered", () => {
    let head = answeredHead();
    const first = planBackgroundCompletions({ head, runId: "r2", completions: [shellDone] });
    head = commitTurnPlan({ head, plan: first });
    head.history.append(createAssistantMessage({ runId: "r2", step: 0, text: "noted" }));
    const mixed = planBackgroundCompletions({
      head,
      runId: "r3",
      completions: [shellDone, agentDone],
    });
    expect(mixed.appended.map((m) => m.id)).toEqual(["runtime:bg.subagent.t2.call_9"]);
    expect(mixed.next).toBe("call-model");
    const repeated = planBackgroundCompletions({ head, runId: "r4", completions: [shellDone] });
    expect(repeated).toMatchObject({ next: "done", retry: true });
    expect(repeated.initialMessages).toEqual([]);
    expect(repeated.newTurns).toEqual([]);
  });

  it("runs the model again for a retry of the delivering run that never got an answer", () => {
    let head = answeredHead();
    head = commitTurnPlan({
      head,
      plan: planBackgroundCompletions({ head, runId: "r2", completions: [shellDone] }),
    });
    const retry = planBackgroundCompletions({ head, runId: "r2", completions: [shellDone] });
    expect(retry).toMatchObject({ next: "call-model", retry: true });
    expect(retry.turn?.eventId).toBe("bg.shell.t1.-");
  });
});

describe("planInjectedContext", () => {
  it("appends one runtime message per injection id and ignores duplicates", () => {
    let head = answeredHead();
    head = { ...head, lastRunId: "r1" };
    const injection = {
      injectionId: "inj-1",
      expectedRunId: "r1",
      runtime: compiledRuntime("lint"),
    };
    const plan = planInjectedContext({ head, runId: "r2", injection });
    expect(plan.initialMessages.map((m) => m.id)).toEqual(["runtime:inject.inj-1"]);
    expect(plan.initialMessages[0]).toMatchObject({ runtimeKind: "injected-context" });
    expect(plan.turn).toEqual({
      clientMessageId: "inj-1",
      eventId: "inject.inj-1",
      runId: "r2",
      messageIds: ["runtime:inject.inj-1"],
    });
    head = commitTurnPlan({ head, plan });
    expect(head.lastRunId).toBe("r2");
    head.history.append(createAssistantMessage({ runId: "r2", step: 0, text: "ok" }));
    // The retry names the run before it as expected; it is a duplicate, not a conflict.
    const duplicate = planInjectedContext({ head, runId: "r2", injection });
    expect(duplicate).toMatchObject({ next: "done", appended: [] });
    const sameIdOtherRun = planInjectedContext({
      head,
      runId: "r3",
      injection: { injectionId: "inj-1", runtime: compiledRuntime("other text") },
    });
    expect(sameIdOtherRun).toMatchObject({ next: "done", initialMessages: [] });
  });

  it("rejects an expectedRunId that is not the latest run", () => {
    const head = { ...answeredHead(), lastRunId: "r1" };
    let caught: unknown;
    try {
      planInjectedContext({
        head,
        runId: "r2",
        injection: { injectionId: "inj-1", expectedRunId: "r0", runtime: compiledRuntime("x") },
      });
    } catch (error) {
      caught = error;
    }
    expect(RunIdMismatchError.isInstance(caught)).toBe(true);
    expect(ProjectionConflictError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ expectedRunId: "r0", lastRunId: "r1", conversationId: "c1" });
  });
});
