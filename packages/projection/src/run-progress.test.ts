import {
  createAssistantMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  HistoryLog,
} from "@cursor/run";
import { describe, expect, it } from "vitest";
import { createConversationHead } from "./conversation-head.js";
import { isAssistantIdOfRun, lastAssistantOfRun, runProgress } from "./run-progress.js";

const runtime = (eventId: string) =>
  createRuntimeMessage({
    eventId,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: eventId }],
  });

function headWith(messages: unknown[]) {
  return createConversationHead({
    conversationId: "c1",
    history: new HistoryLog({ messages }),
    turns: [
      {
        clientMessageId: "m1",
        eventId: "turn.m1.x",
        runId: "r1",
        messageIds: ["runtime:turn.m1.x"],
      },
    ],
  });
}

const call = { index: 0, callId: "call_1", name: "read_file", arguments: "{}" };

describe("runProgress", () => {
  it("is open while the run's event has no answer", () => {
    expect(runProgress({ head: headWith([runtime("turn.m1.x")]), runId: "r1" })).toBe("open");
  });

  it("waits for tools, is open again once they are answered, and completes on a final answer", () => {
    const calling = createAssistantMessage({ runId: "r1", step: 0, toolCalls: [call] });
    const result = createToolResultMessage({ callId: "call_1", name: "read_file", content: "x" });
    const final = createAssistantMessage({ runId: "r1", step: 1, text: "done" });
    expect(runProgress({ head: headWith([runtime("turn.m1.x"), calling]), runId: "r1" })).toBe(
      "awaiting-tools",
    );
    expect(
      runProgress({ head: headWith([runtime("turn.m1.x"), calling, result]), runId: "r1" }),
    ).toBe("open");
    expect(
      runProgress({ head: headWith([runtime("turn.m1.x"), calling, result, final]), runId: "r1" }),
    ).toBe("completed");
  });

  it("is completed when later events superseded the run or nothing of it is left", () => {
    const head = headWith([runtime("turn.m1.x"), runtime("turn.m2.y")]);
    expect(runProgress({ head, runId: "r1" })).toBe("completed");
    const other = headWith([
      runtime("turn.m1.x"),
      createAssistantMessage({ runId: "r2", step: 0 }),
    ]);
    expect(runProgress({ head: other, runId: "r1" })).toBe("completed");
    const summarised = headWith([createSummaryMessage({ summarizedEpoch: 0, text: "s" })]);
    expect(runProgress({ head: summarised, runId: "r1" })).toBe("completed");
    expect(runProgress({ head: headWith([]), runId: "r1" })).toBe("completed");
  });
});

describe("isAssistantIdOfRun", () => {
  it("matches only the run's numbered steps, even with ':' in run ids", () => {
    expect(isAssistantIdOfRun("assistant:r1:0", "r1")).toBe(true);
    expect(isAssistantIdOfRun("assistant:r1:12", "r1")).toBe(true);
    expect(isAssistantIdOfRun("assistant:r:1:2", "r")).toBe(false);
    expect(isAssistantIdOfRun("assistant:r:1:2", "r:1")).toBe(true);
    expect(isAssistantIdOfRun("assistant:r10:0", "r1")).toBe(false);
  });
});

describe("lastAssistantOfRun", () => {
  it("finds the run's final answer at the end of the epoch, and nothing once superseded", () => {
    const calling = createAssistantMessage({ runId: "r1", step: 0, toolCalls: [call] });
    const result = createToolResultMessage({ callId: "call_1", name: "read_file", content: "x" });
    const final = createAssistantMessage({ runId: "r1", step: 1, text: "done" });
    const head = headWith([runtime("turn.m1.x"), calling, result, final]);
    expect(lastAssistantOfRun({ head, runId: "r1" })).toEqual(final);
    expect(
      lastAssistantOfRun({ head: headWith([runtime("turn.m1.x"), calling, result]), runId: "r1" }),
    ).toEqual(calling);
    expect(lastAssistantOfRun({ head, runId: "r2" })).toBeUndefined();
    expect(
      lastAssistantOfRun({
        head: headWith([runtime("turn.m1.x"), final, runtime("turn.m2.y")]),
        runId: "r1",
      }),
    ).toBeUndefined();
  });
});
