import { createAssistantMessage, createToolResultMessage, HistoryLog } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { abandonedToolCallText } from "./abandoned-tool-calls.js";
import { commitTurnPlan } from "./commit-turn-plan.js";
import { createConversationHead } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";
import { planUserTurn } from "./plan-user-turn.js";
import { RunIdReusedError } from "./projection-errors.js";
import { compiledContext, compiledRuntime } from "./testing/compiled-inputs.js";
import { userTurnContentDigest } from "./user-turn-identity.js";

const contextA = compiledContext("rules A");
const contextB = compiledContext("rules B");

function userTurn(
  id: string,
  text: string,
  context: ReturnType<typeof compiledContext> | undefined,
  timestamp?: string,
) {
  return {
    clientMessageId: id,
    requestContext: context,
    runtime: compiledRuntime(text, timestamp),
  };
}

function turnEventId(id: string, text: string, context = contextA): string {
  const digest = userTurnContentDigest({
    requestContext: context,
    runtime: compiledRuntime(text),
  });
  return `turn.${id}.${digest.slice(0, 16)}`;
}

function send(head: ConversationHead, runId: string, turn: ReturnType<typeof userTurn>) {
  const plan = planUserTurn({ head, runId, userTurn: turn });
  return { plan, head: commitTurnPlan({ head, plan }) };
}

function answer(head: ConversationHead, runId: string, step = 0): void {
  head.history.append(createAssistantMessage({ runId, step, text: "done" }));
}

describe("planUserTurn", () => {
  it("refuses a run id that delivered another message, or the same message edited", () => {
    let head = createConversationHead({ conversationId: "c1" });
    head = send(head, "r1", userTurn("m1", "hi", contextA)).head;
    answer(head, "r1");
    for (const reused of [
      userTurn("m2", "next", contextA),
      userTurn("m1", "hi, edited", contextA),
    ]) {
      let thrown: unknown;
      try {
        planUserTurn({ head, runId: "r1", userTurn: reused });
      } catch (error) {
        thrown = error;
      }
      expect(RunIdReusedError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ runId: "r1", deliveredClientMessageId: "m1" });
    }
    // The same message under the same run id is the retry; under a new run id, a new turn.
    expect(
      planUserTurn({ head, runId: "r1", userTurn: userTurn("m1", "hi", contextA) }).retry,
    ).toBe(true);
    expect(
      planUserTurn({ head, runId: "r2", userTurn: userTurn("m2", "next", contextA) }).retry,
    ).toBe(false);
  });

  it("appends the request context and the runtime message of a first turn", () => {
    const head = createConversationHead({ conversationId: "c1" });
    const plan = planUserTurn({ head, runId: "r1", userTurn: userTurn("m1", "hi", contextA) });
    const eventId = turnEventId("m1", "hi");
    expect(plan.initialMessages.map((m) => m.id)).toEqual([
      `request-context:ctx.m1.${contextA.digest.slice(0, 16)}`,
      `runtime:${eventId}`,
    ]);
    expect(plan.appended).toEqual(plan.initialMessages);
    expect(plan.next === "call-model" && plan.currentInitialMessages).toEqual(plan.initialMessages);
    expect(plan.turn).toEqual({
      clientMessageId: "m1",
      eventId,
      runId: "r1",
      messageIds: plan.initialMessages.map((m) => m.id),
    });
    expect(plan.newTurns).toEqual([plan.turn]);
    expect(plan).toMatchObject({
      action: "user-message",
      runId: "r1",
      acceptedRunId: "r1",
      epoch: 0,
      next: "call-model",
      retry: false,
    });
    const [context, runtime] = plan.initialMessages;
    expect(context).toMatchObject({
      kind: "request-context",
      digest: contextA.digest,
      text: "rules A",
    });
    expect(runtime).toMatchObject({ kind: "runtime", runtimeKind: "user-turn", eventId });
    expect(head.history.length).toBe(0);
  });

  it("appends no context while it is unchanged and one new context right before the runtime message when it changes", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "one", contextA)));
    answer(head, "r1");
    const same = send(head, "r2", userTurn("m2", "two", contextA));
    expect(same.plan.initialMessages.map((m) => m.kind)).toEqual(["runtime"]);
    head = same.head;
    answer(head, "r2");
    const changed = send(head, "r3", userTurn("m3", "three", contextB));
    expect(changed.plan.initialMessages.map((m) => m.id)).toEqual([
      `request-context:ctx.m3.${contextB.digest.slice(0, 16)}`,
      `runtime:${turnEventId("m3", "three", contextB)}`,
    ]);
    expect(changed.head.history.latestRequestContext()?.digest).toBe(contextB.digest);
  });

  it("keeps three context events for A → B → A", () => {
    let head = createConversationHead({ conversationId: "c1" });
    for (const [index, context] of [contextA, contextB, contextA].entries()) {
      ({ head } = send(head, `r${index}`, userTurn(`m${index}`, `q${index}`, context)));
      answer(head, `r${index}`);
    }
    const contexts = head.history.messages.filter((m) => m.kind === "request-context");
    expect(contexts.map((m) => m.id)).toEqual([
      `request-context:ctx.m0.${contextA.digest.slice(0, 16)}`,
      `request-context:ctx.m1.${contextB.digest.slice(0, 16)}`,
      `request-context:ctx.m2.${contextA.digest.slice(0, 16)}`,
    ]);
  });

  it("appends no context when the request carries none", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "one", undefined)));
    expect(head.history.messages.map((m) => m.kind)).toEqual(["runtime"]);
  });

  it("reuses the stored messages verbatim for a retry sent later, appending nothing", () => {
    let head = createConversationHead({ conversationId: "c1" });
    const first = send(head, "r1", userTurn("m1", "hi", contextA, "2026-11-29T10:00:00+01:00"));
    head = first.head;
    const retry = planUserTurn({
      head,
      runId: "r1",
      userTurn: userTurn("m1", "hi", contextA, "2026-11-29T10:05:00+01:00"),
    });
    expect(retry.initialMessages).toEqual(first.plan.initialMessages);
    expect(retry.initialMessages[1]).toBe(head.history.messages[1]);
    expect(JSON.stringify(retry.initialMessages[1])).toContain("10:00:00");
    expect(retry.appended).toEqual([]);
    expect(retry.newTurns).toEqual([]);
    expect(retry.turn).toEqual(first.plan.turn);
    // The model never answered the first attempt: the retry runs it.
    expect(retry).toMatchObject({ retry: true, next: "call-model" });
    answer(head, "r1");
    const afterAnswer = planUserTurn({
      head,
      runId: "r1",
      userTurn: userTurn("m1", "hi", contextA),
    });
    expect(afterAnswer).toMatchObject({ retry: true, next: "done" });
    expect(afterAnswer.appended).toEqual([]);
  });

  it("answers a retry of a run that waits for tools with its pending calls", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "hi", contextA)));
    head.history.append(
      createAssistantMessage({
        runId: "r1",
        step: 0,
        toolCalls: [{ index: 0, callId: "call_1", name: "read_file", arguments: "{}" }],
      }),
    );
    const retry = planUserTurn({ head, runId: "r1", userTurn: userTurn("m1", "hi", contextA) });
    expect(retry).toMatchObject({ retry: true, next: "await-tools" });
    expect(retry.next === "await-tools" && retry.pendingToolCalls.map((c) => c.callId)).toEqual([
      "call_1",
    ]);
  });

  it("treats an edited resend as a new event", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "hi", contextA)));
    answer(head, "r1");
    const edited = planUserTurn({ head, runId: "r2", userTurn: userTurn("m1", "hi!", contextA) });
    expect(edited.retry).toBe(false);
    expect(edited.appended.map((m) => m.id)).toEqual([`runtime:${turnEventId("m1", "hi!")}`]);
  });

  it("closes tool calls left pending by an abandoned run before the new turn", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "hi", contextA)));
    head.history.append(
      createAssistantMessage({
        runId: "r1",
        step: 0,
        toolCalls: [
          { index: 1, callId: "call_b", name: "grep", arguments: "{}" },
          { index: 0, callId: "call_a", name: "read_file", arguments: "{}" },
        ],
      }),
    );
    head.history.append(
      createToolResultMessage({ callId: "call_b", name: "grep", content: "found" }),
    );
    const plan = planUserTurn({ head, runId: "r2", userTurn: userTurn("m2", "next", contextA) });
    expect(plan.initialMessages.map((m) => m.id)).toEqual([
      "tool-result:call_a",
      `runtime:${turnEventId("m2", "next")}`,
    ]);
    expect(plan.initialMessages[0]).toEqual({
      kind: "tool-result",
      id: "tool-result:call_a",
      role: "tool",
      origin: "tool",
      callId: "call_a",
      name: "read_file",
      content: abandonedToolCallText,
      isError: true,
    });
    expect(plan.next === "call-model" && plan.currentInitialMessages.map((m) => m.kind)).toEqual([
      "runtime",
    ]);
    expect(plan.turn?.messageIds).toEqual([`runtime:${turnEventId("m2", "next")}`]);
  });

  it("reports a retry of a superseded turn as completed", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "one", contextA)));
    ({ head } = send(head, "r2", userTurn("m2", "two", contextA)));
    const retry = planUserTurn({ head, runId: "r1", userTurn: userTurn("m1", "one", contextA) });
    expect(retry).toMatchObject({
      retry: true,
      next: "done",
      runId: "r1",
    });
  });

  it("recognises a retry on a head rebuilt from messages alone", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "one", contextA)));
    const bare = createConversationHead({
      conversationId: "c1",
      history: new HistoryLog({ messages: head.history.messages }),
    });
    const retry = planUserTurn({
      head: bare,
      runId: "r1",
      userTurn: userTurn("m1", "one", contextA),
    });
    expect(retry.retry).toBe(true);
    expect(retry.appended).toEqual([]);
  });

  it("keeps a context event unique when an edited resend brings back an old context", () => {
    let head = createConversationHead({ conversationId: "c1" });
    ({ head } = send(head, "r1", userTurn("m1", "one", contextA)));
    answer(head, "r1");
    ({ head } = send(head, "r2", userTurn("m2", "two", contextB)));
    answer(head, "r2");
    const edited = send(head, "r3", userTurn("m1", "one, edited", contextA));
    const eventId = turnEventId("m1", "one, edited");
    const turnDigest = eventId.slice(eventId.lastIndexOf(".") + 1);
    expect(edited.plan.appended.map((m) => m.id)).toEqual([
      `request-context:ctx.m1.${turnDigest}.${contextA.digest.slice(0, 16)}`,
      `runtime:${eventId}`,
    ]);
    expect(edited.head.history.latestRequestContext()?.digest).toBe(contextA.digest);
  });
});
