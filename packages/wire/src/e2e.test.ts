import { createHash } from "node:crypto";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ModelRequest } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { fullCursorContext, reorderedCursorContext } from "./__fixtures__/cursor-context.js";
import {
  MemoryConversationService,
  testModels,
} from "./__fixtures__/memory-conversation-service.js";
import { createCursorWire } from "./cursor-wire.js";
import type { CursorWireOptions } from "./cursor-wire.js";
import { ErrorDetails_Error } from "./gen/aiserver_v1_pb.js";
import {
  AgentMode,
  ConversationStateStructureSchema,
  ConversationSummarySchema,
  RequestContextRulesPartSchema,
} from "./gen/agent_v1_pb.js";
import { toHex } from "./hex.js";
import { MemoryIdeBlobStore } from "./testing/ide-blob-store.js";
import { createInProcessFetch } from "./testing/in-process-fetch.js";
import { ScriptedIdeClient } from "./testing/scripted-ide-client.js";
import type { ScriptedIdeClientOptions } from "./testing/scripted-ide-client.js";

function gateway({
  service = new MemoryConversationService(),
  wire: wireOptions = {},
  ide: ideOptions = {},
}: {
  service?: MemoryConversationService;
  wire?: Partial<CursorWireOptions>;
  ide?: Partial<ScriptedIdeClientOptions>;
} = {}) {
  const wire = createCursorWire({ ports: service.ports(), ...wireOptions });
  const ide = new ScriptedIdeClient({
    fetch: createInProcessFetch(wire),
    baseUrl: "http://gateway",
    authorization: "Bearer cursor-session-token-SECRET-4242",
    ...ideOptions,
  });
  return { service, wire, ide };
}

/** The provider-visible history of a request (the transient tail message left out). */
function visible(request: ModelRequest) {
  return request.messages.filter((message) => message.id !== "tail");
}

function expectPrefix(earlier: ModelRequest, later: ModelRequest): void {
  const a = visible(earlier);
  const b = visible(later);
  expect(b.length).toBeGreaterThan(a.length);
  expect(b.slice(0, a.length)).toEqual(a);
}

function storedMessages(service: MemoryConversationService, conversationId: string) {
  return service.store.get(conversationId)?.messages ?? [];
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("Cursor turns end to end (in-memory service, scripted IDE)", () => {
  it("runs an ask-mode turn with rules, skills, env, git and MCP context", async () => {
    const { service, ide } = gateway();
    service.provider.script({ text: "Hello there" });
    const turn = await ide.runTurn({
      conversationId: "c-1",
      text: "What does this repo do?",
      mode: "ask",
      requestContext: fullCursorContext(),
    });
    expect(turn.end).toEqual({});
    expect(turn.appendErrors).toEqual([]);
    expect(turn.text).toBe("Hello there");
    expect(turn.sequence.at(-3)).toBe("checkpoint");
    expect(turn.sequence.slice(-2)).toEqual(["turnEnded", "end"]);

    const body = service.bodies[0]!;
    expect(body.mode).toBe("ask");
    expect(body.model).toBe(testModels[0]!.id);
    expect(body.requestContext?.rules?.map((rule) => rule.name).sort()).toEqual([
      "cloud rule",
      "db",
      "style",
      "tests",
      "user rule",
    ]);
    expect(body.requestContext?.skills).toEqual([
      { name: "pdf", path: "/repo/.cursor/skills/pdf/SKILL.md", description: "Fill PDF forms." },
    ]);
    expect(body.requestContext?.mcp?.servers[0]?.name).toBe("db");

    const request = service.provider.requests[0]!;
    const context = visible(request).find((message) => message.id.startsWith("request-context:"));
    expect(context).toBeDefined();
    expect(request.tools.map((tool) => tool.name)).toContain("mcp__db__query");

    const state = turn.checkpoints.at(-1)!;
    const history = storedMessages(service, "c-1");
    expect(state.rootPromptMessagesJson.slice(1).map(toHex)).toEqual(
      history.map((message) => sha256(new TextEncoder().encode(JSON.stringify(sortKeys(message))))),
    );
    expect(state.mode).toBe(AgentMode.ASK);
    expect(state.selfSummaryCount).toBe(0);
    expect(state.turns).toHaveLength(1);
    expect(state.tokenDetails?.maxTokens).toBe(400_000);
  });

  it("a reordered, unchanged context appends nothing and the provider body extends the first", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({ conversationId: "c-2", text: "one", requestContext: fullCursorContext() });
    await ide.runTurn({
      conversationId: "c-2",
      text: "two",
      requestContext: reorderedCursorContext(),
    });
    const contexts = storedMessages(service, "c-2").filter((m) => m.kind === "request-context");
    expect(contexts).toHaveLength(1);
    expectPrefix(service.provider.requests[0]!, service.provider.requests[1]!);
  });

  it("a context change and its reversion give three context events; a mode switch keeps the spec", async () => {
    const { service, ide } = gateway();
    const changed = fullCursorContext();
    changed.gitRepos = [{ path: "/repo", branchName: "feature", status: "" }];
    await ide.runTurn({
      conversationId: "c-3",
      text: "a",
      mode: "agent",
      requestContext: fullCursorContext(),
    });
    await ide.runTurn({ conversationId: "c-3", text: "b", mode: "plan", requestContext: changed });
    await ide.runTurn({
      conversationId: "c-3",
      text: "c",
      mode: "debug",
      requestContext: fullCursorContext(),
    });
    const contexts = storedMessages(service, "c-3").filter((m) => m.kind === "request-context");
    expect(contexts).toHaveLength(3);
    const [first, second, third] = service.provider.requests;
    expect(second!.instructions).toBe(first!.instructions);
    expect(third!.tools).toEqual(first!.tools);
    expectPrefix(first!, second!);
    expectPrefix(second!, third!);
  });

  it("a retried run request (same message, new request id) appends nothing twice", async () => {
    const { service, ide } = gateway();
    const first = await ide.runTurn({ conversationId: "c-4", text: "hi", messageId: "m-1" });
    const before = storedMessages(service, "c-4");
    const retry = await ide.runTurn({
      conversationId: "c-4",
      text: "hi",
      messageId: "m-1",
      state: "none",
    });
    expect(retry.end).toEqual({});
    expect(storedMessages(service, "c-4")).toEqual(before);
    expect(service.provider.requests).toHaveLength(1);
    expect(service.bodies[1]!.runId).toBe(service.bodies[0]!.runId);
    expect(first.checkpoints.at(-1)!.rootPromptMessagesJson.slice(1)).toEqual(
      retry.checkpoints.at(-1)!.rootPromptMessagesJson.slice(1),
    );
  });

  it("cancel mid-stream ends the stream canceled and leaves the head unchanged", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({ conversationId: "c-5", text: "first" });
    const before = storedMessages(service, "c-5");
    let release!: () => void;
    service.provider.script({ text: "partial", hold: new Promise<void>((r) => (release = r)) });
    const turn = await ide.runTurn({
      conversationId: "c-5",
      text: "second",
      onMessage: (message) =>
        message.message.case === "interactionUpdate" &&
        message.message.value.message.case === "textDelta"
          ? "cancel"
          : undefined,
    });
    release();
    expect(turn.end.error?.code).toBe("canceled");
    expect(storedMessages(service, "c-5")).toEqual(before);
  });

  it("summarize compacts: summary_started, summary, summary_completed, a new epoch", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({
      conversationId: "c-6",
      text: "remember 42",
      requestContext: fullCursorContext(),
    });
    service.summarizer.script({ text: "The user asked to remember 42." });
    const turn = await ide.runTurn({
      conversationId: "c-6",
      action: { action: { case: "summarizeAction", value: {} } },
    });
    expect(turn.end).toEqual({});
    const kinds = turn.sequence.filter((kind) => kind.startsWith("summary"));
    expect(kinds).toEqual(["summaryStarted", "summary", "summaryCompleted"]);
    const state = turn.checkpoints.at(-1)!;
    expect(state.selfSummaryCount).toBe(1);
    expect(fromBinary(ConversationSummarySchema, state.summary!).summary).toContain("remember 42");
    expect(service.store.get("c-6")?.epoch).toBe(1);
  });

  it("runs a tool round in the wire's own loop and sums usage over the run's calls", async () => {
    const { service, ide } = gateway();
    service.provider.script(
      { toolCalls: [{ name: "read_file", arguments: '{"path":"/repo/a.ts"}' }] },
      { text: "I cannot read files here." },
    );
    const turn = await ide.runTurn({ conversationId: "c-7", text: "read a.ts", mode: "agent" });
    expect(turn.end).toEqual({});
    const at = (kind: string) => turn.sequence.indexOf(kind);
    const checkpointsAt = turn.sequence.flatMap((kind, index) =>
      kind === "checkpoint" ? [index] : [],
    );
    // The round starts with a checkpoint naming the pending call, then the call is shown
    // running and completed; a checkpoint after it has the round settled; the last one precedes
    // turn_ended.
    expect(checkpointsAt[0]).toBeLessThan(at("toolCallStarted"));
    expect(at("partialToolCall")).toBeLessThan(at("toolCallStarted"));
    expect(at("toolCallStarted")).toBeLessThan(at("toolCallCompleted"));
    expect(checkpointsAt.at(-1)).toBeGreaterThan(at("toolCallCompleted"));
    expect(checkpointsAt.at(-1)).toBeLessThan(at("turnEnded"));
    const roundStart = turn.checkpoints[0]!;
    expect(roundStart.pendingToolCalls).toHaveLength(1);
    expect(JSON.parse(roundStart.pendingToolCalls[0]!)).toMatchObject({
      role: "assistant",
      content: [{ type: "tool-call", toolName: "read_file", args: { path: "/repo/a.ts" } }],
    });
    expect(turn.checkpoints.at(-1)!.pendingToolCalls).toEqual([]);
    expect(service.bodies[1]!.action.type).toBe("tool-results");
    expect(service.bodies[1]!.runId).toBe(service.bodies[0]!.runId);
    // Two provider calls of 100 input (60 cached, 10 written) and 20 output each.
    expect(turn.turnEnded).toMatchObject({
      inputTokens: 60n,
      outputTokens: 40n,
      cacheReadTokens: 120n,
      cacheWriteTokens: 20n,
    });
    const result = storedMessages(service, "c-7").find((m) => m.kind === "tool-result");
    expect(result).toMatchObject({ isError: true, name: "read_file" });
  });

  it("an unknown model ends with not_found and BAD_MODEL_NAME; nothing is stored", async () => {
    const { service, ide } = gateway();
    const turn = await ide.runTurn({ conversationId: "c-8", text: "hi", modelId: "gpt-unknown" });
    expect(turn.end.error?.code).toBe("not_found");
    expect(turn.end.error?.details[0]?.error).toBe(ErrorDetails_Error.BAD_MODEL_NAME);
    expect(turn.end.error?.details[0]?.details?.detail).toContain("gpt-unknown");
    expect(service.store.has("c-8")).toBe(false);
    const picked = await ide.runTurn({ conversationId: "c-8", text: "hi", modelId: "byok-claude" });
    expect(picked.end).toEqual({});
    expect(service.bodies.at(-1)!.model).toBe("byok-claude");
  });

  it("a provider failure ends with PROVIDER_ERROR, retryable, and the head as it was", async () => {
    const { service, ide } = gateway();
    await ide.runTurn({ conversationId: "c-9", text: "first" });
    const before = storedMessages(service, "c-9");
    service.provider.script({ fail: { message: "upstream 503" } });
    const turn = await ide.runTurn({ conversationId: "c-9", text: "second" });
    expect(turn.end.error?.code).toBe("unavailable");
    const detail = turn.end.error?.details[0];
    expect(detail?.error).toBe(ErrorDetails_Error.PROVIDER_ERROR);
    expect(detail?.details?.isRetryable).toBe(true);
    expect(storedMessages(service, "c-9")).toEqual(before);
  });

  it("accepts RunSSE after the first append, and replays the backlog to a reconnect", async () => {
    const { service, ide } = gateway();
    service.provider.script({ text: "late but fine" });
    const turn = await ide.runTurn({ conversationId: "c-10", text: "hi", appendFirst: true });
    expect(turn.end).toEqual({});
    expect(turn.text).toBe("late but fine");
    const replay = await ide.reconnect({ conversationId: "c-10", requestId: turn.requestId });
    expect(replay.sequence).toEqual(turn.sequence);
    expect(replay.text).toBe(turn.text);
  });
});

describe("KV blobs and conversation state end to end", () => {
  it("sets every referenced blob (id = SHA-256) before the checkpoint, even when acknowledged slowly", async () => {
    const { ide } = gateway({ ide: { acknowledgeDelayMs: 30 } });
    const turn = await ide.runTurn({
      conversationId: "k-1",
      text: "hi",
      requestContext: fullCursorContext(),
    });
    expect(turn.end).toEqual({});
    const checkpointAt = turn.sequence.indexOf("checkpoint");
    expect(turn.sequence.lastIndexOf("set_blob")).toBeLessThan(checkpointAt);
    const state = turn.checkpoints[0]!;
    for (const id of [...state.rootPromptMessagesJson, ...state.turns].map(toHex)) {
      expect(ide.blobs.has(id)).toBe(true);
      expect(sha256(ide.blobs.get(id)!)).toBe(id);
    }
  });

  it("never sends a blob twice to a client that acknowledged it; a turn sends only what it added", async () => {
    const { ide } = gateway();
    const sent: string[] = [];
    const perTurn: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      const turn = await ide.runTurn({
        conversationId: "k-2",
        text: `message ${index}`,
        requestContext: fullCursorContext(),
      });
      sent.push(...turn.kv.setBlobIds);
      perTurn.push(turn.kv.setBlobIds.length);
    }
    expect(new Set(sent).size).toBe(sent.length);
    // After the first turn (context + seal + records), each turn adds the same few blobs.
    expect(new Set(perTurn.slice(1)).size).toBe(1);
  });

  it("a fresh gateway continues from the echoed state with pre_fetched_blobs: same ids, exact prefix", async () => {
    const first = gateway();
    await first.ide.runTurn({
      conversationId: "h-1",
      text: "one",
      requestContext: fullCursorContext(),
    });
    await first.ide.runTurn({
      conversationId: "h-1",
      text: "two",
      requestContext: fullCursorContext(),
    });
    const fresh = gateway({ ide: { blobStore: first.ide.blobs } });
    fresh.ide.setState("h-1", first.ide.stateOf("h-1"));
    const turn = await fresh.ide.runTurn({
      conversationId: "h-1",
      text: "three",
      requestContext: fullCursorContext(),
    });
    expect(turn.end).toEqual({});
    // Attached: every root and UI turn; fetched: only the turn-record chain the seal names.
    const attached = [
      ...first.ide.stateOf("h-1")!.rootPromptMessagesJson,
      ...first.ide.stateOf("h-1")!.turns,
    ].map(toHex);
    expect(turn.kv.getBlobIds.filter((id) => attached.includes(id))).toEqual([]);
    expect(turn.kv.getBlobIds).toHaveLength(2);
    expect(fresh.service.hydrations).toBe(1);
    const before = storedMessages(first.service, "h-1");
    const after = storedMessages(fresh.service, "h-1");
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((m) => m.kind === "request-context")).toHaveLength(1);
    expectPrefix(first.service.provider.requests[1]!, fresh.service.provider.requests[0]!);
  });

  it("a fresh gateway without pre_fetched_blobs fetches them over KV", async () => {
    const first = gateway();
    await first.ide.runTurn({ conversationId: "h-2", text: "one" });
    const fresh = gateway({ ide: { blobStore: first.ide.blobs, prefetchBlobs: false } });
    fresh.ide.setState("h-2", first.ide.stateOf("h-2"));
    const turn = await fresh.ide.runTurn({ conversationId: "h-2", text: "two" });
    expect(turn.end).toEqual({});
    const roots = first.ide.stateOf("h-2")!.rootPromptMessagesJson.map(toHex);
    expect(turn.kv.getBlobIds).toEqual(expect.arrayContaining(roots));
    // Blobs it fetched are known to be on the client: none is set back.
    expect(turn.kv.setBlobIds.filter((id) => roots.slice(1).includes(id))).toEqual([]);
    expectPrefix(first.service.provider.requests[0]!, fresh.service.provider.requests[0]!);
  });

  it("refuses a state whose history was edited with consistent blob hashes", async () => {
    const first = gateway();
    await first.ide.runTurn({ conversationId: "h-3", text: "the secret is 1" });
    const state = first.ide.stateOf("h-3")!;
    const forgedStore = new MemoryIdeBlobStore();
    for (const id of first.ide.blobs.ids()) forgedStore.overwrite(id, first.ide.blobs.get(id)!);
    const runtimeIndex = state.rootPromptMessagesJson.findIndex((id) => {
      const text = new TextDecoder().decode(first.ide.blobs.get(toHex(id)) ?? new Uint8Array());
      return text.includes("the secret is 1");
    });
    const original = new TextDecoder().decode(
      first.ide.blobs.get(toHex(state.rootPromptMessagesJson[runtimeIndex]!))!,
    );
    const forgedData = new TextEncoder().encode(
      original.replace("the secret is 1", "the secret is 2"),
    );
    const forgedId = sha256(forgedData);
    forgedStore.overwrite(forgedId, forgedData);
    const forged = { ...state, rootPromptMessagesJson: [...state.rootPromptMessagesJson] };
    forged.rootPromptMessagesJson[runtimeIndex] = Buffer.from(forgedId, "hex");
    const fresh = gateway({ ide: { blobStore: forgedStore } });
    fresh.ide.setState("h-3", forged as typeof state);
    const turn = await fresh.ide.runTurn({ conversationId: "h-3", text: "what is it?" });
    expect(turn.end.error?.code).toBe("invalid_argument");
    expect(turn.end.error?.message).toContain("conversation state was refused");
    expect(fresh.service.store.has("h-3")).toBe(false);
    expect(fresh.service.provider.requests).toHaveLength(0);
  });

  it("echoes the fields it does not own byte for byte", async () => {
    const { ide } = gateway();
    await ide.runTurn({ conversationId: "u-1", text: "one" });
    const own = toBinary(ConversationStateStructureSchema, ide.stateOf("u-1")!);
    // As the IDE would have them: active_branch_name (19) = "main", one file_states (12) entry
    // {"a.ts": 01 02 03}, and a field of a newer schema (9999 = 42).
    const foreign = new Uint8Array([
      0x9a,
      0x01,
      4,
      ...new TextEncoder().encode("main"),
      0x62,
      11,
      0x0a,
      4,
      ...new TextEncoder().encode("a.ts"),
      0x12,
      3,
      1,
      2,
      3,
      0xf8,
      0xf0,
      0x04,
      0x2a,
    ]);
    ide.setState(
      "u-1",
      fromBinary(ConversationStateStructureSchema, new Uint8Array([...own, ...foreign])),
    );
    const turn = await ide.runTurn({ conversationId: "u-1", text: "two" });
    expect(turn.end).toEqual({});
    const echoed = toBinary(ConversationStateStructureSchema, turn.checkpoints.at(-1)!);
    expect(Buffer.from(echoed).includes(Buffer.from(foreign))).toBe(true);
  });

  it("never logs, stores or sends the IDE's Authorization value", async () => {
    const { service, ide } = gateway();
    service.provider.script({ fail: { message: "boom" } });
    await ide.runTurn({ conversationId: "s-1", text: "one" });
    await ide.runTurn({ conversationId: "s-1", text: "two", requestContext: fullCursorContext() });
    const everything = JSON.stringify({
      logs: service.logs,
      bodies: service.bodies,
      store: [...service.store.values()],
      requests: service.provider.requests,
      blobs: ide.blobs.ids().map((id) => Buffer.from(ide.blobs.get(id)!).toString("latin1")),
      state: Buffer.from(
        JSON.stringify(ide.stateOf("s-1"), (_, v: unknown) =>
          typeof v === "bigint"
            ? String(v)
            : v instanceof Uint8Array
              ? Buffer.from(v).toString("latin1")
              : v,
        ),
      ).toString(),
    });
    expect(everything).not.toContain("SECRET-4242");
    expect(everything).not.toContain("cursor-session-token");
  });
});

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

describe("more of the stream", () => {
  it("streams reasoning as thinking_delta, closed by thinking_completed before the text", async () => {
    const { service, ide } = gateway();
    service.provider.script({ reasoning: "Let me think.", text: "Done." });
    const turn = await ide.runTurn({ conversationId: "t-1", text: "think" });
    expect(turn.thinking).toBe("Let me think.");
    const kinds = turn.sequence.filter(
      (kind) => kind.startsWith("thinking") || kind === "textDelta",
    );
    expect(kinds).toEqual(["thinkingDelta", "thinkingCompleted", "textDelta"]);
  });

  it("resolves request_context_parts blobs over KV when they are not attached", async () => {
    const { service, ide } = gateway({ ide: { prefetchBlobs: false } });
    const rules = toBinary(
      RequestContextRulesPartSchema,
      create(RequestContextRulesPartSchema, {
        rules: [
          {
            fullPath: "/repo/.cursor/rules/kv.mdc",
            content: "Rule from a KV blob.",
            type: { type: { case: "global", value: {} } },
          },
        ],
      }),
    );
    const rulesId = createHash("sha256").update(rules).digest();
    ide.blobs.set(rulesId.toString("hex"), rules);
    const turn = await ide.runTurn({
      conversationId: "t-2",
      action: {
        requestContextParts: { rulesBlobId: rulesId, rulesByteLength: rules.length },
        action: {
          case: "userMessageAction",
          value: { userMessage: { text: "hi", messageId: "m-kv", mode: AgentMode.ASK } },
        },
      },
    });
    expect(turn.end).toEqual({});
    expect(turn.kv.getBlobIds).toEqual([rulesId.toString("hex")]);
    expect(service.bodies[0]!.requestContext?.rules).toEqual([
      { name: "kv", path: "/repo/.cursor/rules/kv.mdc", content: "Rule from a KV blob." },
    ]);
  });

  it("keeps a turn's KV traffic flat as the conversation grows (300 turns)", async () => {
    const { ide } = gateway();
    const perTurn: { blobs: number; bytes: number }[] = [];
    for (let index = 0; index < 300; index += 1) {
      const turn = await ide.runTurn({
        conversationId: "t-3",
        text: `message number ${String(index).padStart(4, "0")}`,
        requestContext: fullCursorContext(),
      });
      perTurn.push({ blobs: turn.kv.setBlobIds.length, bytes: turn.kv.bytesSet });
    }
    const early = perTurn[10]!;
    const late = perTurn[299]!;
    expect(late.blobs).toBe(early.blobs);
    // Only ids and lengths grow; the seal is fixed-size, the rest is this turn's own content.
    expect(Math.abs(late.bytes - early.bytes)).toBeLessThan(early.bytes * 0.02);
  }, 60_000);
});
