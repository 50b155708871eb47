import { describe, expect, it } from "vitest";
import { context, historyWithOneTurn, turn } from "./__fixtures__/loop-fixtures.js";
import { answer, scriptedProvider } from "./__fixtures__/scripted-provider.js";
import type { CanonicalMessage } from "./canonical-message.js";
import { compactHistory } from "./compact-history.js";
import type { CompactorConfig } from "./compact-history.js";
import { compactionReplacement, partitionHistory } from "./compaction-partition.js";
import { ProviderServerError, RunCancelledError } from "./errors.js";
import { fallbackSummary } from "./fallback-summary.js";
import {
  createAssistantMessage,
  createSummaryMessage,
  createToolResultMessage,
} from "./message-builders.js";
import { buildSummarizerRequest } from "./summarizer-request.js";

const byChars = (text: string) => text.length;
const ids = (messages: readonly CanonicalMessage[]) => messages.map((m) => m.id);

/** n finished turns, each: runtime, assistant with a tool call, result, final assistant. */
function turns(n: number): CanonicalMessage[] {
  return Array.from({ length: n }, (_, i) => [
    turn(`t${i}`, `request ${i}`),
    createAssistantMessage({
      runId: `r${i}`,
      step: 0,
      toolCalls: [{ index: 0, callId: `c${i}`, name: "read", arguments: `{"n":${i}}` }],
    }),
    createToolResultMessage({ callId: `c${i}`, name: "read", content: `result ${i}` }),
    createAssistantMessage({ runId: `r${i}`, step: 1, text: `answer ${i}` }),
  ]).flat();
}

describe("partitionHistory and compactionReplacement", () => {
  const history = [context("a"), ...turns(1), context("b"), ...turns(2).slice(4)];

  it("keeps the latest request context ahead of the summary and the current messages last", () => {
    const current = [turn("now")];
    const partition = partitionHistory({ messages: history, current });
    expect(partition.requestContext?.id).toBe("request-context:ctx.b");
    expect(ids(partition.compactable)).toEqual(
      ids(history).filter((id) => id !== "request-context:ctx.b"),
    );
    const summary = createSummaryMessage({ summarizedEpoch: 3, text: "S" });
    expect(ids(compactionReplacement({ partition, summary }))).toEqual([
      "request-context:ctx.b",
      "summary:3",
      "runtime:turn.now",
    ]);
  });

  it("keeps no separate context when the current turn brings one, or when told not to", () => {
    const current = [context("c"), turn("now")];
    const partition = partitionHistory({ messages: history, current });
    expect(partition.requestContext).toBeUndefined();
    expect(partition.compactable).toEqual(history);
    const summary = createSummaryMessage({ summarizedEpoch: 0, text: "S" });
    expect(ids(compactionReplacement({ partition, summary }))).toEqual([
      "summary:0",
      "request-context:ctx.c",
      "runtime:turn.now",
    ]);
    const manual = partitionHistory({ messages: history, current: [], keepRequestContext: false });
    expect(manual.requestContext).toBeUndefined();
    expect(manual.compactable).toHaveLength(history.length);
  });

  it("takes committed current messages out of the compactable part", () => {
    const current = history.slice(-2);
    const partition = partitionHistory({ messages: history, current });
    expect(ids(partition.compactable)).not.toContain(current[0]!.id);
    expect(partition.compactable).toHaveLength(history.length - 3);
  });
});

describe("buildSummarizerRequest", () => {
  const base = {
    conversationId: "conv-1",
    model: "m",
    instructions: "Summarise.",
    finalUserText: "Write the summary now.",
    countTokens: byChars,
  };

  it("has no tools, the caller's instructions, and ends with one user message", () => {
    const request = buildSummarizerRequest({ ...base, messages: turns(2) });
    expect(request.tools).toEqual([]);
    expect(request.instructions).toBe("Summarise.");
    expect(request.messages).toHaveLength(1);
    const last = request.messages[0]!;
    expect(last.role).toBe("user");
    const text =
      last.role === "user" && last.content[0]?.type === "text" ? last.content[0].text : "";
    expect(text.startsWith("<transcript>\n[user turn: user-turn]\nrequest 0")).toBe(true);
    expect(text).toContain('[tool call read c1] {"n":1}');
    expect(text).toContain("[tool result read c1]\nresult 1");
    expect(text.endsWith("</transcript>\n\nWrite the summary now.")).toBe(true);
    expect(JSON.stringify(buildSummarizerRequest({ ...base, messages: turns(2) }))).toBe(
      JSON.stringify(request),
    );
    expect(Object.isFrozen(request.messages)).toBe(true);
  });

  it("drops the oldest turns to fit the budget but keeps an earlier summary", () => {
    const summary = createSummaryMessage({ summarizedEpoch: 0, text: "EARLIER" });
    const messages = [summary, ...turns(10)];
    const full = buildSummarizerRequest({ ...base, messages, maxInputTokens: 100_000 });
    const fullText = JSON.stringify(full.messages);
    expect(fullText).not.toContain("omitted");
    const trimmed = buildSummarizerRequest({ ...base, messages, maxInputTokens: 600 });
    const text = JSON.stringify(trimmed.messages);
    expect(text).toContain("EARLIER");
    expect(text).toMatch(/\[\d+ earlier turns omitted\]/);
    expect(text).toContain("request 9");
    expect(text).not.toContain("request 0");
    expect(text.length).toBeLessThan(fullText.length);
  });

  it("keeps the end of a single turn too large for the budget", () => {
    const huge = [turn("big", `${"old ".repeat(500)}NEWEST`)];
    const request = buildSummarizerRequest({ ...base, messages: huge, maxInputTokens: 300 });
    const text = JSON.stringify(request.messages);
    expect(text).toContain("NEWEST");
    expect(text).toContain("[… cut …]");
    expect(text.length).toBeLessThan(600);
  });
});

describe("fallbackSummary", () => {
  it("is deterministic and lists requests, tools and the last answer", () => {
    const messages = [createSummaryMessage({ summarizedEpoch: 0, text: "before" }), ...turns(3)];
    const text = fallbackSummary({ messages, header: "HEADER" });
    expect(text).toBe(fallbackSummary({ messages, header: "HEADER" }));
    expect(text).toBe(
      [
        "HEADER",
        "Earlier summary:\nbefore",
        "Tools used: read ×3.",
        "Last answer:\nanswer 2",
        "User requests:\n- request 0\n- request 1\n- request 2",
      ].join("\n\n"),
    );
  });

  it("keeps the newest requests within maxChars", () => {
    const text = fallbackSummary({ messages: turns(50), maxChars: 200 });
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toContain("- request 49");
    expect(text).not.toContain("- request 0\n");
    expect(text).toMatch(/User requests \(\d+ older omitted\)/);
  });
});

describe("compactHistory", () => {
  const config = (provider: CompactorConfig["provider"], persisted: unknown[]) => ({
    provider,
    conversationId: "conv-1",
    model: "m",
    instructions: "Summarise.",
    countTokens: byChars,
    persistEpoch: (epoch: unknown) => {
      persisted.push(epoch);
    },
  });

  it("uses the deterministic fallback when the summariser fails", async () => {
    const history = historyWithOneTurn();
    const compactable = history.messages.slice(1);
    const provider = scriptedProvider([
      { error: new ProviderServerError({ providerId: "scripted", message: "down" }) },
    ]);
    const persisted: unknown[] = [];
    const result = await compactHistory({
      ...config(provider, persisted),
      formatSummary: (text: string) => `<summary>${text}</summary>`,
      reason: "manual",
      trigger: "manual",
      history,
      current: [],
    });
    expect(result.fallback).toEqual({ code: "provider_error", message: "down", retryable: true });
    expect(result.summary.text).toBe(
      `<summary>${fallbackSummary({ messages: compactable })}</summary>`,
    );
    expect(ids(history.messages)).toEqual(["request-context:ctx.a", "summary:0"]);
    expect(history.epoch).toBe(1);
    expect(persisted).toHaveLength(1);
    // The persisted epoch carries the digests and head the history switched to.
    expect(persisted[0]).toMatchObject({
      epoch: 1,
      previousEpoch: 0,
      digests: history.digests,
      headDigest: history.headDigest,
    });
  });

  it("does not switch again when the persist port already switched the history", async () => {
    const history = historyWithOneTurn();
    const provider = scriptedProvider([{ events: answer("S") }]);
    const result = await compactHistory({
      ...config(provider, []),
      // The gateway's head owner starts the epoch in the same step as the store write.
      persistEpoch: (epoch) => {
        history.startEpoch(epoch.messages);
      },
      reason: "auto",
      trigger: "budget",
      history,
      current: [],
    });
    expect(history.epoch).toBe(1);
    expect(result.epoch).toBe(1);
    expect(ids(history.messages)).toEqual(["request-context:ctx.a", "summary:0"]);
  });

  it("changes nothing when cancelled or when persisting fails", async () => {
    const history = historyWithOneTurn();
    const head = history.headDigest;
    const controller = new AbortController();
    controller.abort();
    const provider = scriptedProvider([{ events: answer("S") }, { events: answer("S") }]);
    const persisted: unknown[] = [];
    const request = { reason: "auto", trigger: "budget", history, current: [] } as const;
    await expect(
      compactHistory({ ...config(provider, persisted), ...request, signal: controller.signal }),
    ).rejects.toSatisfy(RunCancelledError.isInstance);
    await expect(
      compactHistory({
        ...config(provider, persisted),
        ...request,
        persistEpoch: () => Promise.reject(new Error("disk full")),
      }),
    ).rejects.toThrow("disk full");
    expect(history.headDigest).toBe(head);
    expect(history.epoch).toBe(0);
    expect(persisted).toEqual([]);
  });
});
