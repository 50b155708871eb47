import { createHash } from "node:crypto";
import { createConversationHead } from "@cursor/projection";
import { HistoryLog, createSummaryMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { fullCursorContext } from "../__fixtures__/cursor-context.js";
import { headWithTurns } from "../__fixtures__/heads.js";
import { tick } from "../__fixtures__/raw-wire.js";
import {
  FakeDomainError,
  ScriptedPorts,
  headEvent,
  usageEvent,
} from "../__fixtures__/scripted-ports.js";
import type { ScriptedRun } from "../__fixtures__/scripted-ports.js";
import { testModels } from "../__fixtures__/wire-models.js";
import { createCursorWire } from "../cursor-wire.js";
import type { CursorWireOptions } from "../cursor-wire.js";
import { ErrorDetails_Error } from "../gen/aiserver_v1_pb.js";
import { toHex } from "../hex.js";
import { ManualTimers } from "../session/wire-timers.js";
import { MemoryIdeBlobStore } from "../testing/ide-blob-store.js";
import { createInProcessFetch } from "../testing/in-process-fetch.js";
import { ScriptedIdeClient } from "../testing/scripted-ide-client.js";
import type { IdeTurnResult, ScriptedIdeClientOptions } from "../testing/scripted-ide-client.js";
import type { ToolBridgeFactory } from "./tool-bridge.js";

/**
 * One Cursor turn at the protocol level: the ports play scripted run events (as the server's
 * conversation service emits them), the scripted IDE talks to the wire in process. What the
 * service does with a request is the server's (its end-to-end tests run the real one).
 */

const ideToken = "Bearer cursor-session-token-SECRET-4242";

function gateway({
  ports = new ScriptedPorts(),
  wire: wireOptions = {},
  ide: ideOptions = {},
}: {
  ports?: ScriptedPorts;
  wire?: Partial<CursorWireOptions>;
  ide?: Partial<ScriptedIdeClientOptions>;
} = {}) {
  const wire = createCursorWire({ ports: ports.ports(), ...wireOptions });
  const ide = new ScriptedIdeClient({
    fetch: createInProcessFetch(wire),
    baseUrl: "http://gateway",
    authorization: ideToken,
    ...ideOptions,
  });
  return { ports, wire, ide };
}

const withoutKv = (turn: IdeTurnResult) =>
  turn.sequence.filter((kind) => kind !== "set_blob" && kind !== "get_blob");
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A run that answers `text` and commits `head`. */
function answer(text: string, head: ReturnType<typeof headWithTurns>): ScriptedRun {
  return {
    events: [
      { type: "text.delta", text },
      usageEvent({ input: 100, cached: 60, written: 10, output: 20 }),
      headEvent(head),
      headEvent(head, true),
    ],
  };
}

describe("a Cursor turn: run events as the IDE's messages", () => {
  it("streams thinking, text and a checkpoint per head; turn_ended sums every call's tokens", async () => {
    const { ports, ide } = gateway();
    const head = headWithTurns({ conversationId: "p-1", turns: 1 });
    ports.script({
      events: [
        { type: "reasoning.delta", text: "Let me think." },
        { type: "text.delta", text: "Hello" },
        usageEvent({ input: 100, cached: 60, written: 10, output: 20 }),
        headEvent(head),
        { type: "warning", warning: { type: "dropped", message: "an unknown stream item" } },
        usageEvent({ input: 100, cached: 60, written: 10, output: 20 }),
        headEvent(head, true),
      ],
    });
    const turn = await ide.runTurn({
      conversationId: "p-1",
      text: "hi",
      mode: "ask",
      requestContext: fullCursorContext(),
    });
    expect(turn.end).toEqual({});
    expect(withoutKv(turn)).toEqual([
      "thinkingDelta",
      "thinkingCompleted",
      "textDelta",
      "checkpoint",
      "checkpoint",
      "turnEnded",
      "end",
    ]);
    expect(turn.thinking).toBe("Let me think.");
    // The four counts partition what the providers billed: uncached, read, written, output.
    expect(turn.turnEnded).toMatchObject({
      inputTokens: 60n,
      cacheReadTokens: 120n,
      cacheWriteTokens: 20n,
      outputTokens: 40n,
    });
    const body = ports.bodies[0]!;
    expect(body).toMatchObject({ conversationId: "p-1", mode: "ask", model: testModels[0]!.id });
    expect(body.action.type).toBe("user-message");
    // A skipped provider item is logged, never shown.
    expect(ports.logs.some((line) => line.message === "an unknown stream item")).toBe(true);
    // The checkpoint lists the head's messages by their digests, after the gateway's entries.
    const roots = turn.checkpoints.at(-1)!.rootPromptMessagesJson.map(toHex);
    expect(roots.slice(-head.history.length)).toEqual(
      head.history.messages.map((_, index) => head.history.digestAt(index)),
    );
  });

  it("sends summary_started on compaction.started, before the summariser answers; summary and summary_completed with the new epoch", async () => {
    const { ports, ide } = gateway();
    const summary = createSummaryMessage({ summarizedEpoch: 0, text: "They asked about 42." });
    const compacted = createConversationHead({
      conversationId: "p-2",
      history: new HistoryLog({ epoch: 1, messages: [summary] }),
    });
    let release!: () => void;
    ports.script({
      events: [{ type: "compaction.started", reason: "manual" }],
      hold: new Promise<void>((resolve) => (release = resolve)),
      after: [
        usageEvent({ input: 50, output: 10 }),
        headEvent(compacted),
        { type: "compaction", reason: "manual", epoch: 1 },
        headEvent(compacted, true),
      ],
    });
    const turn = ide.runTurn({
      conversationId: "p-2",
      action: { action: { case: "summarizeAction", value: {} } },
      onMessage: (message) => {
        if (
          message.message.case === "interactionUpdate" &&
          message.message.value.message.case === "summaryStarted"
        ) {
          // The summariser has not answered yet: the IDE already shows it is summarising.
          setImmediate(release);
        }
        return undefined;
      },
    });
    const result = await turn;
    expect(result.end).toEqual({});
    expect(withoutKv(result).filter((kind) => kind.startsWith("summary"))).toEqual([
      "summaryStarted",
      "summary",
      "summaryCompleted",
    ]);
    expect(ports.bodies[0]!.action).toEqual({ type: "summarize" });
    expect(result.checkpoints.at(-1)!.selfSummaryCount).toBe(1);
  });

  it("runs a tool round through the bridge and continues under the same run id", async () => {
    const { ports, ide } = gateway();
    const pending = headWithTurns({ conversationId: "p-3", turns: 1, pendingToolCall: true });
    ports.script(
      {
        events: [
          { type: "tool.call", callId: "call-0", name: "read_file", arguments: '{"path":"/a.ts"}' },
          usageEvent({ input: 100, cached: 60, written: 10, output: 20 }),
          headEvent(pending),
          headEvent(pending, true),
        ],
        end: { reason: "awaiting-tools" },
      },
      answer("I cannot read files here.", headWithTurns({ conversationId: "p-3", turns: 1 })),
    );
    const turn = await ide.runTurn({ conversationId: "p-3", text: "read a.ts" });
    expect(turn.end).toEqual({});
    const at = (kind: string) => turn.sequence.indexOf(kind);
    expect(at("partialToolCall")).toBeLessThan(at("toolCallStarted"));
    expect(at("toolCallStarted")).toBeLessThan(at("toolCallCompleted"));
    expect(turn.checkpoints[0]!.pendingToolCalls).toHaveLength(1);
    expect(turn.checkpoints.at(-1)!.pendingToolCalls).toEqual([]);
    expect(ports.bodies[1]).toMatchObject({
      runId: ports.bodies[0]!.runId,
      action: { type: "tool-results", results: [{ callId: "call-0", isError: true }] },
    });
    expect(turn.turnEnded).toMatchObject({ inputTokens: 60n, outputTokens: 40n });
  });

  it("does not show a call the IDE has no variant for; stops after the configured rounds", async () => {
    const { ports, ide } = gateway({ wire: { maxToolRounds: 2 } });
    const round: ScriptedRun = {
      events: [{ type: "tool.call", callId: "c", name: "web_search", arguments: '{"q":"x"}' }],
      end: { reason: "awaiting-tools" },
    };
    ports.script(round, round, round);
    const turn = await ide.runTurn({ conversationId: "p-4", text: "loop" });
    expect(turn.end).toEqual({});
    expect(turn.sequence.filter((kind) => kind.toLowerCase().includes("toolcall"))).toEqual([]);
    expect(turn.text).toContain("[Stopped after 2 tool rounds; send a message to continue.]");
    expect(ports.bodies).toHaveLength(3);
  });

  it("resume_action runs the stored head's pending round, then continues; nothing pending ends cleanly", async () => {
    const bridge: ToolBridgeFactory = () => ({
      runRound: (calls) =>
        Promise.resolve(
          calls.map((call) => ({ callId: call.callId, output: "hello", isError: false })),
        ),
      deliver: () => undefined,
    });
    const { ports, ide } = gateway({ wire: { toolBridge: bridge } });
    ports.heads.set(
      "p-5",
      headWithTurns({ conversationId: "p-5", turns: 2, pendingToolCall: true }),
    );
    ports.script(answer("It says hello.", headWithTurns({ conversationId: "p-5", turns: 2 })));
    const resumed = await ide.runTurn({
      conversationId: "p-5",
      action: { action: { case: "resumeAction", value: {} } },
    });
    expect(resumed.end).toEqual({});
    expect(resumed.text).toBe("It says hello.");
    expect(ports.bodies[0]).toMatchObject({
      runId: "run-1",
      action: { type: "tool-results", results: [{ callId: "call-1", output: "hello" }] },
    });
    ports.heads.set("p-5", headWithTurns({ conversationId: "p-5", turns: 2 }));
    const nothing = await ide.runTurn({
      conversationId: "p-5",
      action: { action: { case: "resumeAction", value: {} } },
    });
    expect(nothing.sequence).toEqual(["turnEnded", "end"]);
    expect(ports.bodies).toHaveLength(1);
  });

  it("a cancel_action as the run request cancels the conversation's active run", async () => {
    const { ports, ide } = gateway();
    ports.script({
      events: [{ type: "text.delta", text: "slow" }],
      hold: new Promise(() => undefined),
    });
    const running = ide.runTurn({ conversationId: "p-6", text: "long task" });
    while (!ports.active.has("p-6")) await tick();
    const cancel = await ide.runTurn({
      conversationId: "p-6",
      action: { action: { case: "cancelAction", value: { reason: "stop" } } },
    });
    expect(cancel.end.error).toMatchObject({
      code: "canceled",
      message: "cancelled by the client: stop",
    });
    expect((await running).end.error?.code).toBe("canceled");
    expect(ports.cancelled).toContain("p-6");
  });
});

describe("a Cursor turn: errors", () => {
  it("a refused request ends with the Connect error of its domain code, nothing run", async () => {
    const { ports, ide } = gateway();
    ports.script(
      { refuse: new FakeDomainError("conversation_busy", "conversation p-7 is busy") },
      { refuse: new FakeDomainError("invalid_request", "message.text: too long") },
    );
    const busy = await ide.runTurn({ conversationId: "p-7", text: "hi" });
    expect(busy.end.error).toMatchObject({ code: "failed_precondition" });
    const invalid = await ide.runTurn({ conversationId: "p-7", text: "hi" });
    expect(invalid.end.error).toMatchObject({ code: "invalid_argument" });
    expect(invalid.checkpoints).toEqual([]);
  });

  it("an unknown model id ends with not_found and BAD_MODEL_NAME before the service is asked", async () => {
    const { ports, ide } = gateway();
    const turn = await ide.runTurn({ conversationId: "p-8", text: "hi", modelId: "gpt-unknown" });
    expect(turn.end.error?.code).toBe("not_found");
    expect(turn.end.error?.details[0]?.error).toBe(ErrorDetails_Error.BAD_MODEL_NAME);
    expect(turn.end.error?.details[0]?.details?.detail).toContain("gpt-unknown");
    expect(ports.bodies).toEqual([]);
    const picked = await ide.runTurn({ conversationId: "p-8", text: "hi", modelId: "byok-claude" });
    expect(picked.end).toEqual({});
    expect(ports.bodies.at(-1)!.model).toBe("byok-claude");
  });

  it("a provider failure ends with PROVIDER_ERROR and its retryability", async () => {
    const { ports, ide } = gateway();
    ports.script({
      end: {
        reason: "failed",
        error: { code: "provider_error", message: "upstream 503", retryable: true },
      },
    });
    const turn = await ide.runTurn({ conversationId: "p-9", text: "hi" });
    expect(turn.end.error?.code).toBe("unavailable");
    expect(turn.end.error?.details[0]?.error).toBe(ErrorDetails_Error.PROVIDER_ERROR);
    expect(turn.end.error?.details[0]?.details?.isRetryable).toBe(true);
  });

  it("never hands the IDE's Authorization value to the service or its logger", async () => {
    const { ports, ide } = gateway();
    ports.script({
      end: { reason: "failed", error: { code: "boom", message: "boom", retryable: false } },
    });
    await ide.runTurn({ conversationId: "p-10", text: "one" });
    await ide.runTurn({ conversationId: "p-10", text: "two", requestContext: fullCursorContext() });
    const everything = JSON.stringify({ bodies: ports.bodies, logs: ports.logs });
    expect(everything).not.toContain("SECRET-4242");
  });
});

describe("a Cursor turn: KV blobs and the conversation state", () => {
  it("publishes a checkpoint only after every new blob it references was acknowledged, even slowly", async () => {
    const { ports, ide } = gateway({ ide: { acknowledgeDelayMs: 30 } });
    ports.script(answer("Hi.", headWithTurns({ conversationId: "k-1", turns: 2 })));
    const held: boolean[] = [];
    const turn = await ide.runTurn({
      conversationId: "k-1",
      text: "hi",
      onMessage: (message) => {
        if (message.message.case === "conversationCheckpointUpdate") {
          const state = message.message.value;
          // The client stores a blob when it acknowledges it, after its delay.
          held.push(
            [...state.rootPromptMessagesJson, ...state.turns].every((id) =>
              ide.blobs.has(toHex(id)),
            ),
          );
        }
        return undefined;
      },
    });
    expect(turn.end).toEqual({});
    expect(held).toEqual([true, true]);
    for (const id of turn.kv.setBlobIds) expect(sha256(ide.blobs.get(id)!)).toBe(id);
  });

  it("on a KV error no checkpoint is published and the stream ends unavailable; without acknowledgements in 10 s, deadline_exceeded", async () => {
    const failing = gateway({ ide: { failBlobSet: () => "quota exceeded" } });
    failing.ports.script(answer("Hi.", headWithTurns({ conversationId: "k-2", turns: 1 })));
    const refused = await failing.ide.runTurn({ conversationId: "k-2", text: "hi" });
    expect(refused.checkpoints).toEqual([]);
    expect(refused.end.error?.code).toBe("unavailable");
    expect(refused.end.error?.message).toContain("quota exceeded");

    const timers = new ManualTimers();
    const silent = gateway({ wire: { timers }, ide: { ignoreBlobSets: true } });
    silent.ports.script(answer("Hi.", headWithTurns({ conversationId: "k-3", turns: 1 })));
    const timedOut = await silent.ide.runTurn({
      conversationId: "k-3",
      text: "hi",
      onMessage: (message) => {
        if (message.message.case === "kvServerMessage") setImmediate(() => timers.advance(10_000));
        return undefined;
      },
    });
    expect(timedOut.checkpoints).toEqual([]);
    expect(timedOut.end.error?.code).toBe("deadline_exceeded");
    expect(timedOut.end.error?.message).toContain("within 10000 ms");
  });

  it("never sends a blob twice to a client that holds it", async () => {
    const { ports, ide } = gateway();
    const sent: string[] = [];
    for (let turns = 1; turns <= 5; turns += 1) {
      ports.script(answer(`Answer ${turns}.`, headWithTurns({ conversationId: "k-4", turns })));
      const turn = await ide.runTurn({ conversationId: "k-4", text: `message ${turns}` });
      expect(turn.end).toEqual({});
      sent.push(...turn.kv.setBlobIds);
    }
    expect(new Set(sent).size).toBe(sent.length);
  });

  it("hydrates an echoed state the service does not store, from pre_fetched_blobs or over KV; refuses a forged one", async () => {
    const first = gateway();
    const head = headWithTurns({ conversationId: "h-1", turns: 3 });
    first.ports.script(answer("Three.", head));
    await first.ide.runTurn({ conversationId: "h-1", text: "three" });
    const state = first.ide.stateOf("h-1")!;
    for (const prefetch of [true, false]) {
      const fresh = gateway({ ide: { blobStore: first.ide.blobs, prefetchBlobs: prefetch } });
      fresh.ide.setState("h-1", state);
      const turn = await fresh.ide.runTurn({ conversationId: "h-1", text: "four" });
      expect(turn.end).toEqual({});
      const [hydrated] = fresh.ports.hydrated;
      expect(hydrated!.history.messages).toEqual(head.history.messages);
      expect(hydrated!.turns).toEqual(head.turns);
      expect(hydrated!.lastRunId).toBe(head.lastRunId);
      const roots = state.rootPromptMessagesJson.map(toHex);
      // Attached: nothing to fetch. Not attached: every root blob, asked for at once.
      if (prefetch) expect(turn.kv.getBlobIds).toEqual([]);
      else expect(new Set(turn.kv.getBlobIds)).toEqual(new Set(roots));
    }
    // One message edited, its blob id made consistent: the seal's digest chain refuses it.
    const forgedStore = new MemoryIdeBlobStore();
    for (const id of first.ide.blobs.ids()) forgedStore.overwrite(id, first.ide.blobs.get(id)!);
    const roots = [...state.rootPromptMessagesJson];
    const index = roots.findIndex((id) =>
      new TextDecoder().decode(first.ide.blobs.get(toHex(id))).includes("question 2"),
    );
    const edited = new TextEncoder().encode(
      new TextDecoder()
        .decode(first.ide.blobs.get(toHex(roots[index]!)))
        .replace("question 2", "question 9"),
    );
    forgedStore.overwrite(sha256(edited), edited);
    roots[index] = Buffer.from(sha256(edited), "hex");
    const forged = gateway({ ide: { blobStore: forgedStore } });
    forged.ide.setState("h-1", { ...state, rootPromptMessagesJson: roots });
    const refused = await forged.ide.runTurn({ conversationId: "h-1", text: "what did I ask?" });
    expect(refused.end.error?.code).toBe("invalid_argument");
    expect(refused.end.error?.message).toContain("conversation state was refused");
    expect(forged.ports.hydrated).toEqual([]);
  });
});
