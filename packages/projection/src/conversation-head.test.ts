import { createRuntimeMessage, HistoryLog } from "@cursor/run";
import { describe, expect, it } from "vitest";
import {
  appendTurns,
  createConversationHead,
  findTurn,
  isDelivered,
  isRecordedMessageId,
  turnsOfRun,
} from "./conversation-head.js";

const turn = {
  clientMessageId: "t1",
  eventId: "bg.shell.t1.-",
  runId: "r1",
  messageIds: ["runtime:bg.shell.t1.-"],
};

describe("conversation head", () => {
  it("validates turn records at the boundary", () => {
    expect(() =>
      createConversationHead({ conversationId: "c1", turns: [{ ...turn, extra: 1 }] }),
    ).toThrow();
    expect(() => createConversationHead({ conversationId: "bad id" })).toThrow();
    const head = createConversationHead({ conversationId: "c1", turns: [turn], lastRunId: "r1" });
    expect(head).toMatchObject({ conversationId: "c1", turns: [turn], lastRunId: "r1" });
    expect(head.history.epoch).toBe(0);
    expect(Object.isFrozen(head.turns)).toBe(true);
  });

  it("knows delivered events from turn records (any epoch) and from the current epoch", () => {
    const recorded = createConversationHead({ conversationId: "c1", turns: [turn] });
    expect(findTurn(recorded, "bg.shell.t1.-")).toEqual(turn);
    expect(isDelivered(recorded, "bg.shell.t1.-")).toBe(true);
    expect(isRecordedMessageId(recorded, "runtime:bg.shell.t1.-")).toBe(true);
    expect(isDelivered(recorded, "bg.shell.t2.-")).toBe(false);
    const fromMessages = createConversationHead({
      conversationId: "c1",
      history: new HistoryLog({
        messages: [
          createRuntimeMessage({
            eventId: "inject.i1",
            runtimeKind: "injected-context",
            content: [{ type: "text", text: "x" }],
          }),
        ],
      }),
    });
    expect(isDelivered(fromMessages, "inject.i1")).toBe(true);
    expect(findTurn(fromMessages, "inject.i1")).toBeUndefined();
  });

  it("shares one index along a chain of appended turns without leaking across branches", () => {
    const record = (n: number) => ({
      clientMessageId: `m${n}`,
      eventId: `turn.m${n}.x`,
      runId: `r${n}`,
      messageIds: [`runtime:turn.m${n}.x`],
    });
    const base = createConversationHead({ conversationId: "c1", turns: [record(0)] });
    expect(findTurn(base, "turn.m0.x")).toEqual(record(0));
    const longer = { ...base, turns: appendTurns(base.turns, [record(1)]) };
    const branch = { ...base, turns: appendTurns(base.turns, [record(2)]) };
    expect(longer.turns.map((turn) => turn.eventId)).toEqual(["turn.m0.x", "turn.m1.x"]);
    expect(findTurn(longer, "turn.m1.x")).toEqual(record(1));
    expect(findTurn(base, "turn.m1.x")).toBeUndefined();
    expect(isRecordedMessageId(base, "runtime:turn.m1.x")).toBe(false);
    expect(findTurn(branch, "turn.m2.x")).toEqual(record(2));
    expect(findTurn(branch, "turn.m1.x")).toBeUndefined();
    expect(findTurn(longer, "turn.m2.x")).toBeUndefined();
    expect(isRecordedMessageId(longer, "runtime:turn.m1.x")).toBe(true);
    expect(appendTurns(longer.turns, [])).toBe(longer.turns);
    expect(Object.isFrozen(longer.turns[1])).toBe(true);
  });

  it("finds every turn of a run from the index, in order, within the array's own length", () => {
    const record = (n: number, runId: string) => ({
      clientMessageId: `m${n}`,
      eventId: `turn.m${n}.x`,
      runId,
      messageIds: [`runtime:turn.m${n}.x`],
    });
    const base = createConversationHead({
      conversationId: "c1",
      turns: [record(0, "r1"), record(1, "r2"), record(2, "r1")],
    });
    expect(turnsOfRun(base, "r1")).toEqual([record(0, "r1"), record(2, "r1")]);
    expect(turnsOfRun(base, "r2")).toEqual([record(1, "r2")]);
    expect(turnsOfRun(base, "r9")).toEqual([]);
    const longer = { ...base, turns: appendTurns(base.turns, [record(3, "r1")]) };
    expect(turnsOfRun(longer, "r1").map((turn) => turn.eventId)).toEqual([
      "turn.m0.x",
      "turn.m2.x",
      "turn.m3.x",
    ]);
    // The shorter array of the same chain does not see the later turn.
    expect(turnsOfRun(base, "r1")).toHaveLength(2);
    const branch = { ...base, turns: appendTurns(base.turns, [record(4, "r1")]) };
    expect(turnsOfRun(branch, "r1").map((turn) => turn.eventId)).toEqual([
      "turn.m0.x",
      "turn.m2.x",
      "turn.m4.x",
    ]);
  });
});
