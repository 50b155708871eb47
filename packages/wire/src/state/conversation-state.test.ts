import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { headWithTurns } from "../__fixtures__/heads.js";
import type { ConversationStateStructure } from "../gen/agent_v1_pb.js";
import {
  AgentConversationTurnStructureSchema,
  AgentMode,
  ConversationStateStructureSchema,
  ConversationStepSchema,
  ConversationTurnStructureSchema,
  PreFetchedBlobSchema,
  UserMessageSchema,
} from "../gen/agent_v1_pb.js";
import { fromHex, sha256, toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import { ClientBlobSource } from "../translate/client-blob-source.js";
import { encodeConversationState } from "./encode-conversation-state.js";
import { snapshotHead } from "./head-snapshot.js";
import { hydrateConversationState } from "./hydrate-conversation-state.js";
import { TurnRecordPacks, turnRecordLayout } from "./turn-record-packs.js";
import { buildUiTurn } from "./ui-turn.js";

const secret = "state-test-secret-0123456789abcdef0123";

function encode(head = headWithTurns(), { echoed }: { echoed?: ConversationStateStructure } = {}) {
  const encoded = encodeConversationState({
    head: snapshotHead(head, head.history.pendingToolCalls()),
    echoed,
    uiTurns: { ids: [], blobs: [] },
    mode: AgentMode.AGENT,
    tokenDetails: { usedTokens: 1234, maxTokens: 200_000 },
    secret,
    records: new TurnRecordPacks(),
  });
  const store = new Map<string, Uint8Array>(encoded.blobs.map((blob) => [blob.id, blob.data()]));
  return { head, encoded, store };
}

function sourceOf(store: Map<string, Uint8Array>) {
  return new ClientBlobSource({
    prefetched: [...store].map(([id, value]) =>
      create(PreFetchedBlobSchema, { id: fromHex(id), value }),
    ),
    kv: undefined,
  });
}

async function hydrate(
  state: ConversationStateStructure,
  store: Map<string, Uint8Array>,
  conversationId = "conv-state",
) {
  return hydrateConversationState({ state, conversationId, secret, blobs: sourceOf(store) });
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => ({ code: "none", message: "accepted" }),
    (error: { code: string; message: string }) => ({ code: error.code, message: error.message }),
  );
}

describe("Cursor conversation state: encode and hydrate", () => {
  it("lists the seal, the turn-record blobs, then each message of the epoch by the SHA-256 of its canonical JSON", () => {
    const { head, encoded, store } = encode();
    const roots = encoded.state.rootPromptMessagesJson.map(toHex);
    // Two turn records: one blob each (a pack holds 32).
    expect(roots).toHaveLength(1 + 2 + head.history.length);
    head.history.messages.forEach((_, index) => {
      const id = roots[index + 3]!;
      expect(id).toBe(head.history.digestAt(index));
      expect(toHex(sha256(store.get(id)!))).toBe(id);
    });
    const seal = JSON.parse(new TextDecoder().decode(store.get(roots[0]!)!));
    expect(seal).toMatchObject({
      kind: "cursor-gateway.conversation-state",
      conversationId: "conv-state",
      epoch: 0,
      messages: head.history.length,
      headDigest: head.history.headDigest,
      lastRunId: "run-1",
      turnRecords: { count: 2, blobs: 2 },
    });
    expect(
      roots
        .slice(1, 3)
        .map((id) => JSON.parse(new TextDecoder().decode(store.get(id)!)) as { records: unknown[] })
        .flatMap((pack) => pack.records),
    ).toEqual(head.turns);
    expect(encoded.state.mode).toBe(AgentMode.AGENT);
    expect(encoded.state.tokenDetails).toMatchObject({ usedTokens: 1234, maxTokens: 200_000 });
    expect(encoded.state.selfSummaryCount).toBe(0);
  });

  it("hydrates a head with the same message ids, content, turn records and last run", async () => {
    const { head, encoded, store } = encode();
    const hydrated = (await hydrate(encoded.state, store))!;
    expect(hydrated.history.messages).toEqual(head.history.messages);
    expect(hydrated.history.headDigest).toBe(head.history.headDigest);
    expect(hydrated.turns).toEqual(head.turns);
    expect(hydrated.lastRunId).toBe("run-1");
  });

  it("hydrates the state after a protobuf round trip (what the IDE stores and echoes)", async () => {
    const { encoded, store } = encode();
    const echoed = fromBinary(
      ConversationStateStructureSchema,
      toBinary(ConversationStateStructureSchema, encoded.state),
    );
    // The seal and the two turn-record blobs are not messages.
    expect((await hydrate(echoed, store))!.history.length).toBe(
      encoded.state.rootPromptMessagesJson.length - 3,
    );
  });

  it("writes the open tool round as pending_tool_calls", () => {
    const { encoded } = encode(headWithTurns({ pendingToolCall: true }));
    expect(encoded.state.pendingToolCalls.map((entry) => JSON.parse(entry))).toEqual([
      {
        id: "assistant:run-1:0",
        role: "assistant",
        content: [
          { type: "reasoning", text: "Need the file." },
          { type: "text", text: "Let me look." },
          { type: "tool-call", toolCallId: "call-1", toolName: "read_file", args: { path: "/a" } },
        ],
      },
    ]);
  });

  it("returns nothing to hydrate for an empty state", async () => {
    expect(await hydrate(create(ConversationStateStructureSchema, {}), new Map())).toBeUndefined();
  });

  it("refuses a message edited with a consistent blob hash", async () => {
    const { encoded, store } = encode();
    const roots = [...encoded.state.rootPromptMessagesJson];
    const index = roots.findIndex((id) =>
      new TextDecoder().decode(store.get(toHex(id))!).includes("question 0"),
    );
    const forged = new TextEncoder().encode(
      new TextDecoder()
        .decode(store.get(toHex(roots[index]!))!)
        .replace("question 0", "question X"),
    );
    store.set(toHex(sha256(forged)), forged);
    roots[index] = sha256(forged);
    const result = await refusal(
      hydrate(
        create(ConversationStateStructureSchema, {
          ...encoded.state,
          rootPromptMessagesJson: roots,
        }),
        store,
      ),
    );
    expect(result).toEqual({
      code: "invalid_argument",
      message:
        "the conversation state was refused: its messages do not match the history its seal signed",
    });
  });

  it("refuses dropped or reordered messages, another secret, another conversation, inline entries", async () => {
    const { encoded, store } = encode();
    const roots = encoded.state.rootPromptMessagesJson;
    const withRoots = (rootPromptMessagesJson: Uint8Array[]) =>
      create(ConversationStateStructureSchema, { ...encoded.state, rootPromptMessagesJson });
    expect((await refusal(hydrate(withRoots(roots.slice(0, -1)), store))).message).toContain(
      `lists ${roots.length - 2} entries after its seal, the seal signed 2 turn-record blobs and ${roots.length - 3} messages`,
    );
    // Two records swapped, and two messages swapped: both orders are signed.
    for (const [a, b] of [
      [1, 2],
      [3, 4],
    ] as const) {
      const swapped = [...roots];
      [swapped[a], swapped[b]] = [swapped[b]!, swapped[a]!];
      expect((await refusal(hydrate(withRoots(swapped), store))).code).toBe("invalid_argument");
    }
    expect(
      (
        await refusal(
          hydrateConversationState({
            state: encoded.state,
            conversationId: "conv-state",
            secret: "another-secret-0123456789abcdef0123",
            blobs: sourceOf(store),
          }),
        )
      ).message,
    ).toContain("integrity check failed");
    expect(
      (await refusal(hydrate(encoded.state, store, "another-conversation"))).message,
    ).toContain("it belongs to conversation conv-state");
    expect(
      (await refusal(hydrate(withRoots([new TextEncoder().encode('{"role":"system"}')]), store)))
        .message,
    ).toContain("is not a 32-byte blob id");
  });

  it("refuses a forged seal and an edited turn record", async () => {
    const { encoded, store } = encode();
    const sealId = toHex(encoded.state.rootPromptMessagesJson[0]!);
    const seal = JSON.parse(new TextDecoder().decode(store.get(sealId)!));
    const forgedSeal = new TextEncoder().encode(
      JSON.stringify({ ...seal, lastRunId: "run-forged" }),
    );
    store.set(toHex(sha256(forgedSeal)), forgedSeal);
    const roots = [sha256(forgedSeal), ...encoded.state.rootPromptMessagesJson.slice(1)];
    expect(
      (
        await refusal(
          hydrate(
            create(ConversationStateStructureSchema, {
              ...encoded.state,
              rootPromptMessagesJson: roots,
            }),
            store,
          ),
        )
      ).message,
    ).toContain("integrity check failed");
    // A turn-record blob whose bytes were replaced under the same id fails its SHA-256 check.
    const recordId = toHex(encoded.state.rootPromptMessagesJson[2]!);
    store.set(
      recordId,
      new TextEncoder().encode(
        new TextDecoder().decode(store.get(recordId)!).replace("run-1", "run-2"),
      ),
    );
    expect((await refusal(hydrate(encoded.state, store))).code).toBe("invalid_argument");
  });

  it("keeps every field it does not own, byte for byte, and the todos", () => {
    const foreign = new Uint8Array([0x9a, 0x01, 3, 0x64, 0x65, 0x76, 0xa0, 0x02, 0x01]);
    const todo = new Uint8Array([0x0a, 0x01, 0x31]);
    const echoed = fromBinary(
      ConversationStateStructureSchema,
      new Uint8Array([
        ...toBinary(
          ConversationStateStructureSchema,
          create(ConversationStateStructureSchema, { todos: [todo] }),
        ),
        ...foreign,
      ]),
    );
    const { encoded } = encode(headWithTurns(), { echoed });
    const bytes = toBinary(ConversationStateStructureSchema, encoded.state);
    expect(Buffer.from(bytes).subarray(bytes.length - foreign.length)).toEqual(
      Buffer.from(foreign),
    );
    expect(encoded.state.todos).toEqual([todo]);
  });

  it("builds the UI turn of a run: user message, thinking, text and tool-call steps as blobs", () => {
    const head = headWithTurns({ turns: 1 });
    const userMessage = create(UserMessageSchema, {
      text: "question 0",
      messageId: "m-0",
      mode: AgentMode.AGENT,
    });
    const { turnId, blobs } = buildUiTurn({
      head: snapshotHead(head, []),
      runId: "run-0",
      userMessage,
      requestId: "req-9",
    });
    const byId = new Map(blobs.map((blob: ClientBlob) => [blob.id, blob.data]));
    for (const blob of blobs) expect(toHex(sha256(blob.data))).toBe(blob.id);
    const turn = fromBinary(ConversationTurnStructureSchema, byId.get(turnId)!);
    expect(turn.turn.case).toBe("agentConversationTurn");
    const agentTurn = fromBinary(
      AgentConversationTurnStructureSchema,
      toBinary(AgentConversationTurnStructureSchema, turn.turn.value!),
    );
    expect(agentTurn.requestId).toBe("req-9");
    expect(fromBinary(UserMessageSchema, byId.get(toHex(agentTurn.userMessage))!).text).toBe(
      "question 0",
    );
    const steps = agentTurn.steps.map(
      (id) => fromBinary(ConversationStepSchema, byId.get(toHex(id))!).message,
    );
    expect(steps.map((step) => step.case)).toEqual(["toolCall", "assistantMessage"]);
    expect(steps[1]!.value).toMatchObject({ text: "answer 0" });
  });
});

describe("turn records", () => {
  it("pack 32 records per blob once full; one blob per record after; hydration reads them all", async () => {
    const head = headWithTurns({ turns: 70 });
    expect(turnRecordLayout(70).map((entry) => entry.size)).toEqual([32, 32, 1, 1, 1, 1, 1, 1]);
    const { encoded, store } = encode(head);
    const roots = encoded.state.rootPromptMessagesJson.map(toHex);
    expect(roots).toHaveLength(1 + 8 + head.history.length);
    const hydrated = (await hydrate(encoded.state, store))!;
    expect(hydrated.turns).toEqual(head.turns);
  });

  it("a turn adds one record blob; every 32nd turn one pack; earlier blobs keep their ids", () => {
    const packs = new TurnRecordPacks();
    const records = headWithTurns({ turns: 65 }).turns;
    const ids = (count: number) =>
      packs.blobs({ conversationId: "c", records: records.slice(0, count) }).map((b) => b.id);
    const at31 = ids(31);
    const at32 = ids(32);
    const at33 = ids(33);
    expect(at31).toHaveLength(31);
    expect(at32).toHaveLength(1);
    expect(at33.slice(0, 1)).toEqual(at32);
    expect(at33).toHaveLength(2);
    // The same records give the same blobs in any process (a fresh cache).
    expect(
      new TurnRecordPacks()
        .blobs({ conversationId: "c", records: records.slice(0, 33) })
        .map((b) => b.id),
    ).toEqual(at33);
  });

  it("refuses record blobs out of place, or not the ones the seal signed", async () => {
    const { encoded, store } = encode(headWithTurns({ turns: 3 }));
    const roots = encoded.state.rootPromptMessagesJson;
    // Dropping a record blob changes what the seal signed.
    const dropped = create(ConversationStateStructureSchema, {
      ...encoded.state,
      rootPromptMessagesJson: [roots[0]!, ...roots.slice(2)],
    });
    expect((await refusal(hydrate(dropped, store))).message).toContain("entries after its seal");
  });
});
