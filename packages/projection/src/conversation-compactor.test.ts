import { summarizerInstructions } from "@cursor/request";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createToolResultMessage,
  HistoryLog,
  InvalidHistoryError,
} from "@cursor/run";
import type { CanonicalMessage, PersistEpoch } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { createConversationCompactor } from "./conversation-compactor.js";
import { ScriptedProvider } from "./testing/scripted-provider.js";

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
const epochMessages = [
  contextA,
  runtime("m1", "QUERY-1"),
  createAssistantMessage({ runId: "r1", step: 0, text: "ANSWER-1" }),
  contextB,
  runtime("m2", "QUERY-2"),
  createAssistantMessage({ runId: "r2", step: 0, text: "ANSWER-2" }),
];
const current = runtime("m3", "QUERY-3");

/** Compacts a fresh copy of the epoch above; returns the history, what was persisted, the call. */
async function compacted({
  reason,
  currentMessages,
}: {
  reason: "auto" | "manual";
  currentMessages: readonly CanonicalMessage[];
}) {
  const history = new HistoryLog({ epoch: 3, messages: epochMessages });
  const summarizer = new ScriptedProvider();
  summarizer.script({ text: "SUMMARY" });
  const persisted: Parameters<PersistEpoch>[0][] = [];
  const compact = createConversationCompactor({
    provider: summarizer,
    conversationId: "c1",
    model: "m",
    persistEpoch: (epoch) => {
      persisted.push(epoch);
    },
  });
  const result = await compact({
    reason,
    trigger: reason === "auto" ? "budget" : "manual",
    history,
    current: currentMessages,
  });
  return { history, persisted, result, request: summarizer.calls[0]!.request };
}

const ids = (messages: readonly CanonicalMessage[]) => messages.map((m) => m.id);

describe("createConversationCompactor", () => {
  it("auto: [latest request context] + [summary] + [current initial messages]", async () => {
    const { history, persisted, result } = await compacted({
      reason: "auto",
      currentMessages: [current],
    });
    expect(ids(history.messages)).toEqual([contextB.id, "summary:3", current.id]);
    expect(history.epoch).toBe(4);
    expect(history.messages[0]).toEqual(contextB);
    expect(history.messages[1]).toMatchObject({ kind: "summary", summarizedEpoch: 3 });
    // The summary carries @cursor/request's wrapping of the summariser's answer.
    expect(history.messages[1]!.kind === "summary" && history.messages[1]!.text).toMatch(
      /^<conversation_summary>[\s\S]*SUMMARY[\s\S]*<\/conversation_summary>/,
    );
    // The epoch was persisted, with its digests, before the history switched to it.
    expect(persisted).toHaveLength(1);
    expect(persisted[0]).toMatchObject({ epoch: 4, previousEpoch: 3, reason: "auto" });
    expect(ids(persisted[0]!.messages)).toEqual(ids(history.messages));
    expect(persisted[0]!.digests).toEqual(history.digests);
    expect(persisted[0]!.headDigest).toBe(history.headDigest);
    expect(result.fallback).toBeUndefined();
  });

  it("auto: the current turn's own context replaces the head's, after the summary", async () => {
    const contextC = context("c", "CONTEXT-C");
    const { history } = await compacted({ reason: "auto", currentMessages: [contextC, current] });
    expect(ids(history.messages)).toEqual(["summary:3", contextC.id, current.id]);
  });

  it("auto: current messages already in the epoch are kept once, at the end", async () => {
    const { history } = await compacted({
      reason: "auto",
      currentMessages: epochMessages.slice(3, 5),
    });
    expect(ids(history.messages)).toEqual(["summary:3", contextB.id, "runtime:turn.m2"]);
  });

  it("manual: only the summary, then the current initial messages if any", async () => {
    expect(
      ids((await compacted({ reason: "manual", currentMessages: [] })).history.messages),
    ).toEqual(["summary:3"]);
    expect(
      ids((await compacted({ reason: "manual", currentMessages: [current] })).history.messages),
    ).toEqual(["summary:3", current.id]);
  });

  it("refuses a replacement that is not a valid epoch, persisting nothing", async () => {
    const orphan = createToolResultMessage({ callId: "call_1", name: "read_file", content: "x" });
    const history = new HistoryLog({ epoch: 3, messages: epochMessages });
    const head = history.headDigest;
    const summarizer = new ScriptedProvider();
    const persisted: unknown[] = [];
    const compact = createConversationCompactor({
      provider: summarizer,
      conversationId: "c1",
      model: "m",
      persistEpoch: (epoch) => {
        persisted.push(epoch);
      },
    });
    await expect(
      compact({ reason: "auto", trigger: "budget", history, current: [orphan] }),
    ).rejects.toSatisfy(InvalidHistoryError.isInstance);
    expect(persisted).toEqual([]);
    expect(history.headDigest).toBe(head);
  });

  it("asks the summariser for exactly what the replacement drops: no tools, one user message", async () => {
    const { request } = await compacted({ reason: "auto", currentMessages: [current] });
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
    const manual = await compacted({ reason: "manual", currentMessages: [] });
    expect(JSON.stringify(manual.request.messages)).toContain("CONTEXT-B");
  });
});
