import { createRuntimeMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { createConversationHead } from "./conversation-head.js";
import { finalizeTurnPlan } from "./turn-plan.js";

const runtime = createRuntimeMessage({
  eventId: "turn.m1.0",
  runtimeKind: "user-turn",
  content: [{ type: "text", text: "hi" }],
});
const base = { action: "user-message", runId: "r1", acceptedRunId: "r1", newTurns: [] } as const;

describe("finalizeTurnPlan", () => {
  it("records the epoch and the validated new messages, frozen", () => {
    const head = createConversationHead({ conversationId: "c1" });
    const plan = finalizeTurnPlan({
      head,
      draft: {
        ...base,
        next: "call-model",
        initialMessages: [runtime],
        currentInitialMessages: [runtime],
        retry: false,
      },
    });
    expect(plan).toMatchObject({ next: "call-model", epoch: 0, appended: [runtime] });
    expect(Object.isFrozen(plan)).toBe(true);
    expect(Object.isFrozen(plan.appended[0])).toBe(true);
    expect(head.history.length).toBe(0);
  });

  it("refuses a draft that breaks its variant's promise", () => {
    const head = createConversationHead({ conversationId: "c1" });
    expect(() =>
      finalizeTurnPlan({
        head,
        draft: { ...base, next: "done", initialMessages: [runtime], retry: true },
      }),
    ).toThrow(/done must not append anything/);
    expect(() =>
      finalizeTurnPlan({
        head,
        draft: {
          ...base,
          next: "await-tools",
          initialMessages: [],
          pendingToolCalls: [],
          retry: true,
        },
      }),
    ).toThrow(/must name the calls it waits for/);
  });
});
