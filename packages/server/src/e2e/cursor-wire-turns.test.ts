import { createHash } from "node:crypto";
import { canonicalJson } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import type { RecordedRequest } from "@cursor/testkit";
import type { IdeTurnResult, ScriptedIdeClient } from "@cursor/wire/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  changedCursorContext,
  fullCursorContext,
  reorderedCursorContext,
} from "./cursor-context.js";
import { hex, scriptedIde, startWireGateway, wireProtocols } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { cacheShortfalls, prefixViolations, staticParts } from "./provider-bodies.js";
import { isSummarizerCall, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import type { WireFetch } from "./wire-fetch.js";

/**
 * The Cursor IDE's agent protocol end to end: a scripted IDE (written from the wire spec) talks
 * RunSSE + BidiAppend over real HTTP/1.1 and h2c to a real `cursor-gateway serve` process, whose
 * provider package talks to the testkit's fake provider (with its prefix-cache simulation).
 */

const folders = temporaryFolders("cursor-wire");
const api = "openai-responses";
/** `AgentMode.ASK` of the Cursor schema (cursor-wire-facts.md §2.4). */
const askMode = 2;

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(async () => {
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

const digest = (message: CanonicalMessage) =>
  createHash("sha256").update(canonicalJson(message)).digest("hex");
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** The provider calls a step made (the fake records every request, in order). */
async function calls<T>(
  step: () => Promise<T>,
): Promise<{ result: T; requests: RecordedRequest[] }> {
  const before = provider.fake.requests.length;
  const result = await step();
  return { result, requests: provider.fake.requests.slice(before) };
}

/** The sections of a store dump (`# <table> (n rows)` and its rows) for the given tables. */
function dumpSections(dump: string, tables: readonly string[]): string {
  const sections = dump.split(/^(?=# )/m);
  return sections
    .filter((section) => tables.some((table) => section.startsWith(`# ${table} `)))
    .join("");
}

function expectCleanEnd(turn: IdeTurnResult): void {
  expect(turn.end, JSON.stringify(turn.end)).toEqual({});
  expect(turn.appendErrors).toEqual([]);
  expect(turn.sequence.slice(-2)).toEqual(["turnEnded", "end"]);
}

/** Every blob a state references is on the client, under the SHA-256 of its bytes. */
function expectBlobsHeld(ide: ScriptedIdeClient, state: IdeTurnResult["checkpoints"][number]) {
  for (const id of [...state.rootPromptMessagesJson, ...state.turns].map(hex)) {
    const data = ide.blobs.get(id);
    expect(data, `blob ${id}`).toBeDefined();
    expect(sha256(data!)).toBe(id);
  }
}

describe.each(wireProtocols)("Cursor turns through a real gateway process over %s", (protocol) => {
  let gateway: WireGateway;
  let ide: ScriptedIdeClient;
  let transport: WireFetch;
  const conversation = (name: string) => `${protocol}-${name}`;

  beforeAll(async () => {
    gateway = await startWireGateway({ provider, dataDir: folders.create() });
    ({ ide, transport } = scriptedIde({ url: gateway.url, protocol }));
  });
  afterAll(async () => {
    transport.close();
    await gateway.stop();
  });

  it("a first ask-mode turn with rules, skills, env, git and MCP context", async () => {
    const conversationId = conversation("first");
    provider.reply = { type: "text", text: "It is a BYOK gateway." };
    const { result: turn, requests } = await calls(() =>
      ide.runTurn({
        conversationId,
        text: "What does this repo do?",
        mode: "ask",
        requestContext: fullCursorContext(),
      }),
    );
    expectCleanEnd(turn);
    expect(transport.versions).toEqual(new Set([protocol === "h1" ? "1.1" : "2.0"]));
    expect(turn.text).toBe("It is a BYOK gateway.");
    expect(turn.sequence.at(-3)).toBe("checkpoint");
    expect(requests).toHaveLength(1);

    const history = await gateway.history(conversationId);
    expect(history.map((message) => message.kind)).toEqual([
      "request-context",
      "runtime",
      "assistant",
    ]);
    const context = JSON.stringify(history[0]);
    for (const fact of [
      "Prefer small functions.",
      "src/**/*.test.ts",
      "Database work",
      "Answer in English.",
      "Never commit secrets.",
      "Fill PDF forms.",
      "Reviews diffs.",
      "linux 6.1",
      "Europe/Berlin",
      " M src/a.ts",
      "Read-only.",
    ]) {
      expect(context).toContain(JSON.stringify(fact).slice(1, -1));
    }
    expect(JSON.stringify(history[1])).toContain("What does this repo do?");
    const tools = (requests[0]!.body as { tools: { name: string }[] }).tools.map(
      (tool) => tool.name,
    );
    expect(tools).toEqual(expect.arrayContaining(["mcp__db__query", "mcp__db__tables"]));

    // Cursor's conversation state: every message of the epoch by its content address, last.
    const state = turn.checkpoints.at(-1)!;
    const roots = state.rootPromptMessagesJson.map(hex);
    expect(roots.slice(-history.length)).toEqual(history.map(digest));
    expect(state.mode).toBe(askMode);
    expect(state.selfSummaryCount).toBe(0);
    expect(state.turns).toHaveLength(1);
    expectBlobsHeld(ide, state);
  });

  it("the same context reordered: no new context message, and the provider body extends the first", async () => {
    const conversationId = conversation("reordered");
    provider.reply = { type: "text", text: "One." };
    const first = await calls(() =>
      ide.runTurn({ conversationId, text: "one", requestContext: fullCursorContext() }),
    );
    provider.reply = { type: "text", text: "Two." };
    const second = await calls(() =>
      ide.runTurn({ conversationId, text: "two", requestContext: reorderedCursorContext() }),
    );
    expectCleanEnd(second.result);
    const history = await gateway.history(conversationId);
    expect(history.filter((message) => message.kind === "request-context")).toHaveLength(1);
    expect(history.map((message) => message.kind)).toEqual([
      "request-context",
      "runtime",
      "assistant",
      "runtime",
      "assistant",
    ]);
    const bodies = [first.requests[0]!.body, second.requests[0]!.body];
    expect(prefixViolations(api, bodies)).toEqual([]);
    expect(cacheShortfalls(second.requests)).toEqual([]);
  });

  it("a context change and its reversion: three context events, each body extending the last", async () => {
    const conversationId = conversation("context-change");
    const bodies: unknown[] = [];
    for (const [text, requestContext] of [
      ["on main", fullCursorContext()],
      ["on a branch", changedCursorContext()],
      ["back on main", fullCursorContext()],
    ] as const) {
      provider.reply = { type: "text", text: `Noted: ${text}.` };
      const { result, requests } = await calls(() =>
        ide.runTurn({ conversationId, text, requestContext }),
      );
      expectCleanEnd(result);
      bodies.push(requests[0]!.body);
    }
    const history = await gateway.history(conversationId);
    const contexts = history.filter((message) => message.kind === "request-context");
    expect(contexts).toHaveLength(3);
    expect(new Set(contexts.map((message) => message.id)).size).toBe(3);
    expect(JSON.stringify(contexts[1])).toContain("feature/login");
    expect(prefixViolations(api, bodies)).toEqual([]);
  });

  it("a mode switch keeps instructions and tools byte-identical", async () => {
    const conversationId = conversation("modes");
    const requests: RecordedRequest[] = [];
    for (const mode of ["agent", "plan", "debug", "ask"] as const) {
      provider.reply = { type: "text", text: `In ${mode} mode.` };
      const step = await calls(() =>
        ide.runTurn({
          conversationId,
          text: `now ${mode}`,
          mode,
          requestContext: fullCursorContext(),
        }),
      );
      expectCleanEnd(step.result);
      requests.push(...step.requests);
    }
    const parts = requests.map((request) => JSON.stringify(staticParts(api, request.body)));
    expect(new Set(parts).size).toBe(1);
    expect(
      prefixViolations(
        api,
        requests.map((request) => request.body),
      ),
    ).toEqual([]);
    expect(cacheShortfalls(requests.slice(1))).toEqual([]);
    const history = await gateway.history(conversationId);
    expect(history.filter((message) => message.kind === "request-context")).toHaveLength(1);
  });

  it("a retry of the same run request appends nothing twice and calls no provider", async () => {
    const conversationId = conversation("retry");
    provider.reply = { type: "text", text: "Answered once." };
    const input = {
      conversationId,
      text: "hello",
      messageId: "bubble-1",
      requestContext: fullCursorContext(),
      state: "none" as const,
    };
    const first = await calls(() => ide.runTurn(input));
    expectCleanEnd(first.result);
    const history = await gateway.history(conversationId);
    const dump = gateway.dump();
    // The same run request again (a client retry: same message, same echoed state, a new
    // request id), and once more with the context reordered.
    const retry = await calls(() => ide.runTurn(input));
    const reordered = await calls(() =>
      ide.runTurn({ ...input, requestContext: reorderedCursorContext() }),
    );
    for (const again of [retry, reordered]) {
      expectCleanEnd(again.result);
      expect(again.requests).toEqual([]);
      // The stored answer, replayed.
      expect(again.result.text).toBe("Answered once.");
      expect(again.result.checkpoints.at(-1)!.rootPromptMessagesJson).toEqual(
        first.result.checkpoints.at(-1)!.rootPromptMessagesJson,
      );
    }
    expect(await gateway.history(conversationId)).toEqual(history);
    // Nothing appended anywhere (the run row only notes that it was requested again).
    expect(dumpSections(gateway.dump(), ["blobs", "messages", "turns"])).toBe(
      dumpSections(dump, ["blobs", "messages", "turns"]),
    );
  });

  it("cancel mid-stream ends the stream canceled and leaves the head unchanged", async () => {
    const conversationId = conversation("cancel");
    provider.reply = { type: "text", text: "First answer." };
    expectCleanEnd(await ide.runTurn({ conversationId, text: "first" }));
    const history = await gateway.history(conversationId);
    provider.reply = {
      type: "slow",
      delayMsPerEvent: 100,
      reply: { type: "text", text: "a long answer that never finishes", chunks: 30 },
    };
    const cancelled = await ide.runTurn({
      conversationId,
      text: "second",
      onMessage: (message) =>
        message.message.case === "interactionUpdate" &&
        message.message.value.message.case === "textDelta"
          ? "cancel"
          : undefined,
    });
    expect(cancelled.end.error?.code).toBe("canceled");
    expect(cancelled.turnEnded).toBeUndefined();
    expect(await gateway.history(conversationId)).toEqual(history);
    // The conversation is free again: the next turn runs and extends the old head.
    provider.reply = { type: "text", text: "Third answer." };
    const next = await ide.runTurn({ conversationId, text: "third" });
    expectCleanEnd(next);
    expect((await gateway.history(conversationId)).slice(0, history.length)).toEqual(history);
  });

  it("summarize: summary_started before the summariser call, then summary and summary_completed", async () => {
    const conversationId = conversation("summarize");
    provider.reply = { type: "text", text: "Remembered." };
    expectCleanEnd(
      await ide.runTurn({
        conversationId,
        text: "remember 42",
        requestContext: fullCursorContext(),
      }),
    );
    provider.summary = {
      type: "slow",
      delayMsPerEvent: 120,
      reply: { type: "text", text: "The user asked to remember 42.", chunks: 6 },
    };
    const seen: { kind: string; at: number; summarizerCalls: number }[] = [];
    const { result: turn, requests } = await calls(() =>
      ide.runTurn({
        conversationId,
        action: { action: { case: "summarizeAction", value: {} } },
        onMessage: (message) => {
          if (message.message.case === "interactionUpdate") {
            const kind = message.message.value.message.case ?? "";
            if (kind.startsWith("summary")) {
              seen.push({
                kind,
                at: performance.now(),
                summarizerCalls: provider.fake.requests.filter((r) => isSummarizerCall(r.body))
                  .length,
              });
            }
          }
          return undefined;
        },
      }),
    );
    provider.summary = { type: "text", text: "Summary: the conversation so far, in brief." };
    expectCleanEnd(turn);
    expect(seen.map((entry) => entry.kind)).toEqual([
      "summaryStarted",
      "summary",
      "summaryCompleted",
    ]);
    expect(requests.filter((request) => isSummarizerCall(request.body))).toHaveLength(1);
    // Sent before the summariser answered (its slow reply takes over a second).
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThan(600);
    const state = turn.checkpoints.at(-1)!;
    expect(state.selfSummaryCount).toBe(1);
    const history = await gateway.history(conversationId);
    expect(history.map((message) => message.kind)).toEqual(["summary"]);
    expect(JSON.stringify(history[0])).toContain("remember 42");
    expect(state.rootPromptMessagesJson.map(hex).slice(-1)).toEqual([digest(history[0]!)]);
  });

  it("KV: every blob a checkpoint references is set and acknowledged first, even slowly; none is sent twice", async () => {
    const slow = scriptedIde({ url: gateway.url, protocol, options: { acknowledgeDelayMs: 40 } });
    try {
      const conversationId = conversation("kv");
      const sent: string[] = [];
      for (let index = 0; index < 4; index += 1) {
        provider.reply = { type: "text", text: `Answer ${index}.` };
        const checkpointsSeenHeld: boolean[] = [];
        const turn = await slow.ide.runTurn({
          conversationId,
          text: `message ${index}`,
          requestContext: index % 2 === 0 ? fullCursorContext() : reorderedCursorContext(),
          onMessage: (message) => {
            if (message.message.case === "conversationCheckpointUpdate") {
              // The client stores a blob only when it acknowledges it (after its delay): the
              // checkpoint arriving after every referenced blob is stored proves the barrier.
              const state = message.message.value;
              checkpointsSeenHeld.push(
                [...state.rootPromptMessagesJson, ...state.turns].every((id) =>
                  slow.ide.blobs.has(hex(id)),
                ),
              );
            }
            return undefined;
          },
        });
        expectCleanEnd(turn);
        expect(checkpointsSeenHeld.length).toBeGreaterThan(0);
        expect(checkpointsSeenHeld.every(Boolean)).toBe(true);
        for (const state of turn.checkpoints) expectBlobsHeld(slow.ide, state);
        for (const id of turn.kv.setBlobIds) {
          expect(sha256(slow.ide.blobs.get(id)!)).toBe(id);
        }
        sent.push(...turn.kv.setBlobIds);
      }
      expect(new Set(sent).size).toBe(sent.length);
    } finally {
      slow.transport.close();
    }
  });
});
