import { summarizerInstructions } from "@cursor/request";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  HistoryLog,
  InvalidHistoryError,
} from "@cursor/run";
import { describe, expect, it } from "vitest";
import { compactionReplacement } from "./compaction-replacement.js";
import { createConversationHead } from "./conversation-head.js";
import { summarizerRequest } from "./summarizer-request.js";

const context = (id: string, text: string) =>
  createRequestContextMessage({ eventId: `ctx.${id}`, digest: id.padEnd(64, "0"), text });
const runtime = (id: string, text: string) =>
  createRuntimeMessage({
    eventId: `turn.${id}`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });

const contextA = context("a", "CONTEXT-A");
const contextB = context("b", "CONTEXT-B");
const head = createConversationHead({
  conversationId: "c1",
  history: new HistoryLog({
    epoch: 3,
    messages: [
      contextA,
      runtime("m1", "QUERY-1"),
      createAssistantMessage({ runId: "r1", step: 0, text: "ANSWER-1" }),
      contextB,
      runtime("m2", "QUERY-2"),
      createAssistantMessage({ runId: "r2", step: 0, text: "ANSWER-2" }),
    ],
  }),
});
const current = runtime("m3", "QUERY-3");

describe("compactionReplacement", () => {
  it("auto: [latest request context] + [summary] + [current initial messages]", () => {
    const replacement = compactionReplacement({
      head,
      summary: "SUMMARY",
      currentInitialMessages: [current],
      reason: "auto",
    });
    expect(replacement.map((m) => m.id)).toEqual([contextB.id, "summary:3", current.id]);
    expect(replacement[0]).toBe(head.history.messages[3]);
    expect(replacement[1]).toMatchObject({ kind: "summary", summarizedEpoch: 3 });
    expect(replacement[1]!.kind === "summary" && replacement[1]!.text).toMatch(
      /^<conversation_summary>[\s\S]*SUMMARY[\s\S]*<\/conversation_summary>/,
    );
  });

  it("auto: the current turn's own context replaces the head's, after the summary", () => {
    const contextC = context("c", "CONTEXT-C");
    const replacement = compactionReplacement({
      head,
      summary: "S",
      currentInitialMessages: [contextC, current],
      reason: "auto",
    });
    expect(replacement.map((m) => m.id)).toEqual(["summary:3", contextC.id, current.id]);
  });

  it("auto: current messages already in the epoch are kept once, at the end", () => {
    const replacement = compactionReplacement({
      head,
      summary: "S",
      currentInitialMessages: head.history.messages.slice(3, 5),
      reason: "auto",
    });
    expect(replacement.map((m) => m.id)).toEqual(["summary:3", contextB.id, "runtime:turn.m2"]);
  });

  it("manual: only the summary, then the current initial messages if any", () => {
    expect(
      compactionReplacement({
        head,
        summary: "S",
        currentInitialMessages: [],
        reason: "manual",
      }).map((m) => m.id),
    ).toEqual(["summary:3"]);
    expect(
      compactionReplacement({
        head,
        summary: "S",
        currentInitialMessages: [current],
        reason: "manual",
      }).map((m) => m.id),
    ).toEqual(["summary:3", current.id]);
  });

  it("refuses a replacement that is not a valid epoch", () => {
    const orphan = createToolResultMessage({ callId: "call_1", name: "read_file", content: "x" });
    expect(() =>
      compactionReplacement({
        head,
        summary: "S",
        currentInitialMessages: [orphan],
        reason: "auto",
      }),
    ).toThrow(InvalidHistoryError);
  });
});

describe("summarizerRequest", () => {
  it("summarises exactly what the replacement drops, with no tools, ending with a user message", () => {
    const request = summarizerRequest({
      head,
      currentInitialMessages: [current],
      reason: "auto",
      model: "m",
    });
    expect(request.tools).toEqual([]);
    expect(request.instructions).toBe(summarizerInstructions);
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0]).toMatchObject({ role: "user" });
    const transcript = JSON.stringify(request.messages[0]);
    for (const kept of ["QUERY-1", "ANSWER-1", "CONTEXT-A", "QUERY-2", "ANSWER-2"]) {
      expect(transcript).toContain(kept);
    }
    expect(transcript).not.toContain("CONTEXT-B");
    expect(transcript).not.toContain("QUERY-3");
    const manual = JSON.stringify(
      summarizerRequest({ head, currentInitialMessages: [], reason: "manual", model: "m" })
        .messages,
    );
    expect(manual).toContain("CONTEXT-B");
  });
});
