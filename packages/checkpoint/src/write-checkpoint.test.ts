import {
  HistoryLog,
  canonicalJson,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  messageDigest,
  sha256Hex,
} from "@cursor/run";
import { describe, expect, it } from "vitest";
import { CountingBlobStore } from "./__fixtures__/counting-store.js";
import { expectReasonAsync } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { conversationId, growingStates, prefixState, stateOf } from "./__fixtures__/states.js";
import type { BlobStore } from "./blob-store.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { createCheckpointState } from "./create-checkpoint-state.js";
import { readCheckpoint } from "./read-checkpoint.js";
import { storedChunkSize } from "./stored-objects.js";
import { writeCheckpoint } from "./write-checkpoint.js";

const byteLength = (value: unknown) => Buffer.byteLength(canonicalJson(value), "utf8");

describe("writeCheckpoint", () => {
  it("writes every message and turn blob plus one root the first time", async () => {
    const built = agentConversation(3);
    const state = stateOf(built);
    const store = new CountingBlobStore();
    const result = await writeCheckpoint({ store, state });
    // 1 request context + 3 × (runtime, assistant, tool result, assistant)
    expect(state.messages).toHaveLength(13);
    const rootBytes = store.get(result.ref.rootId)!.byteLength;
    expect(result).toEqual({
      ref: {
        rootId: expect.stringMatching(/^[0-9a-f]{64}$/),
        conversationId,
        epoch: 0,
        headDigest: built.history.headDigest,
        messageCount: 13,
        turnCount: 3,
      },
      bytesWritten:
        state.messages.reduce((sum, message) => sum + byteLength(message), 0) +
        state.turns.reduce((sum, turn) => sum + byteLength(turn), 0) +
        rootBytes,
      blobsWritten: 16,
      chunksWritten: 1,
    });
    expect(store.size).toBe(17);
    expect(store.putCalls).toBe(1);
    for (const message of state.messages) expect(store.has(messageDigest(message))).toBe(true);
    expect(await readCheckpoint({ store, ref: result.ref })).toEqual(state);
  });

  it("stores the root as canonical JSON holding the tails of both sequences", async () => {
    const built = agentConversation(3);
    const state = { ...stateOf(built), promptSpecDigest: sha256Hex("spec") };
    const store = new CountingBlobStore();
    const { ref } = await writeCheckpoint({ store, state });
    const root = JSON.parse(Buffer.from(store.get(ref.rootId)!).toString("utf8"));
    expect(root).toEqual({
      type: "cursor.checkpoint.root",
      version: 2,
      conversationId,
      epoch: 0,
      headDigest: state.headDigest,
      latestRequestContextId: state.latestRequestContextId,
      promptSpecDigest: sha256Hex("spec"),
      messages: { count: 13, chunk: null, tail: state.messages.map((m) => messageDigest(m)) },
      turns: {
        count: 3,
        chunk: null,
        tail: state.turns.map((turn) => sha256Hex(canonicalJson(turn))),
      },
    });
    expect(sha256Hex(store.get(ref.rootId)!)).toBe(ref.rootId);
  });

  it("writes nothing for a state the store already holds (a retried turn)", async () => {
    const state = stateOf(agentConversation(5));
    const store = new CountingBlobStore();
    const first = await writeCheckpoint({ store, state });
    const size = store.size;
    const again = await writeCheckpoint({ store, previous: first.ref, state });
    expect(again).toEqual({ ref: first.ref, bytesWritten: 0, blobsWritten: 0, chunksWritten: 0 });
    const fromScratch = await writeCheckpoint({ store, state });
    expect(fromScratch).toEqual(again);
    expect(store.size).toBe(size);
  });

  it("appends turn by turn writing only the new blobs, the root and newly full chunks", async () => {
    const store = new CountingBlobStore();
    let previous: CheckpointState | undefined;
    let ref;
    let turn = 0;
    for (const state of growingStates(agentConversation(40))) {
      turn += 1;
      store.resetCounts();
      const result = await writeCheckpoint({ store, previous: ref, state });
      const before = previous?.messages.length ?? 0;
      const after = state.messages.length;
      const newChunks =
        Math.floor(after / storedChunkSize.messages) -
        Math.floor(before / storedChunkSize.messages) +
        Math.floor(turn / storedChunkSize.turns) -
        Math.floor((turn - 1) / storedChunkSize.turns);
      expect(result.blobsWritten).toBe(after - before + 1);
      expect(result.chunksWritten).toBe(newChunks + 1);
      // Reads the previous root and nothing else (plus the newest turn chunk when the turn tail
      // is empty, to compare the newest turn); asks only about what it might write.
      const turnTailEmpty = turn > 1 && (turn - 1) % storedChunkSize.turns === 0;
      expect(store.gets).toBe(ref === undefined ? 0 : turnTailEmpty ? 2 : 1);
      expect(store.hasCalls).toBe(after - before + 1 + newChunks + 1);
      if (turn % 4 === 0) expect(await readCheckpoint({ store, ref: result.ref })).toEqual(state);
      previous = state;
      ref = result.ref;
    }
    expect(ref).toMatchObject({ messageCount: 164, turnCount: 40 });
  });

  it("keeps bytes per turn independent of the conversation's length", async () => {
    const store = new CountingBlobStore();
    let ref;
    const bytes: number[] = [];
    for (const state of growingStates(agentConversation(200))) {
      const result = await writeCheckpoint({ store, previous: ref, state });
      bytes.push(result.bytesWritten);
      ref = result.ref;
    }
    // The message and turn tails cycle every 8 and 16 turns; compare whole cycles.
    const mean = (from: number) => bytes.slice(from, from + 16).reduce((a, b) => a + b, 0) / 16;
    expect(Math.abs(mean(184) - mean(24)) / mean(24)).toBeLessThan(0.05);
  });

  it("rewrites the newest turn when its run grows, reopening a full chunk when it must", async () => {
    const built = agentConversation(17);
    const store = new CountingBlobStore();
    for (const turnCount of [5, 16]) {
      const state = prefixState(built, turnCount);
      const { ref } = await writeCheckpoint({ store, state });
      const lastTurn = state.turns[turnCount - 1]!;
      const grown: CheckpointState = {
        ...state,
        turns: [
          ...state.turns.slice(0, -1),
          { ...lastTurn, messageIds: [...lastTurn.messageIds, "assistant:extra"] },
        ],
      };
      store.resetCounts();
      const result = await writeCheckpoint({ store, previous: ref, state: grown });
      expect(result.blobsWritten).toBe(1);
      // At 16 turns the newest turn sits in a full chunk, which is read and written anew.
      expect(result.chunksWritten).toBe(turnCount === 16 ? 2 : 1);
      expect(store.gets).toBe(turnCount === 16 ? 2 : 1);
      expect(await readCheckpoint({ store, ref: result.ref })).toEqual(grown);
    }
  });

  it("handles a state with fewer turns than its previous one", async () => {
    const built = agentConversation(40);
    const store = new CountingBlobStore();
    const long = prefixState(built, 40);
    const { ref } = await writeCheckpoint({ store, state: long });
    const fewer: CheckpointState = { ...long, turns: long.turns.slice(0, 10) };
    const result = await writeCheckpoint({ store, previous: ref, state: fewer });
    expect(result.blobsWritten).toBe(0);
    expect(await readCheckpoint({ store, ref: result.ref })).toEqual(fewer);
  });

  it("writes a new epoch in full, reusing blobs the store holds", async () => {
    const built = agentConversation(12);
    const store = new CountingBlobStore();
    const before = stateOf(built);
    const { ref } = await writeCheckpoint({ store, state: before });
    const context = built.history.latestRequestContext()!;
    const runtime = createRuntimeMessage({
      eventId: "turn.m12.0000000000000000",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "after compaction" }],
    });
    const history = new HistoryLog({ epoch: 0, messages: built.messages });
    history.startEpoch([
      context,
      createSummaryMessage({ summarizedEpoch: 0, text: "summary" }),
      runtime,
    ]);
    const after = createCheckpointState({
      conversationId,
      history,
      turns: built.turns,
      latestRequestContextId: context.id,
    });
    const result = await writeCheckpoint({ store, previous: ref, state: after });
    expect(result.ref).toMatchObject({ epoch: 1, messageCount: 3, turnCount: 12 });
    expect(result.blobsWritten).toBe(2);
    expect(await readCheckpoint({ store, ref: result.ref })).toEqual(after);
  });

  it("falls back to a full write when the state does not extend its previous one", async () => {
    const store = new CountingBlobStore();
    const context = (text: string) =>
      createRequestContextMessage({ eventId: `ctx.${text}`, digest: sha256Hex(text), text });
    const original = new HistoryLog({ messages: [context("a"), context("b"), context("c")] });
    const edited = new HistoryLog({
      messages: [context("a"), context("b"), context("x"), context("d")],
    });
    const { ref } = await writeCheckpoint({
      store,
      state: createCheckpointState({ conversationId, history: original, turns: [] }),
    });
    const state = createCheckpointState({ conversationId, history: edited, turns: [] });
    const result = await writeCheckpoint({ store, previous: ref, state });
    expect(result.blobsWritten).toBe(2);
    expect(await readCheckpoint({ store, ref: result.ref })).toEqual(state);
  });

  it("gives unfrozen copies of a state the same checkpoint", async () => {
    const state = stateOf(agentConversation(6));
    const store = new CountingBlobStore();
    const frozen = await writeCheckpoint({ store, state });
    const copy = await writeCheckpoint({
      store: new CountingBlobStore(),
      state: structuredClone(state),
    });
    expect(copy).toEqual({ ...frozen, bytesWritten: copy.bytesWritten });
    expect(copy.bytesWritten).toBe(frozen.bytesWritten);
  });

  it("refuses a state whose head digest is not its messages', writing nothing", async () => {
    const state = stateOf(agentConversation(3));
    const store = new CountingBlobStore();
    await expectReasonAsync(
      () => writeCheckpoint({ store, state: { ...state, headDigest: sha256Hex("other") } }),
      "head-mismatch",
    );
    await expectReasonAsync(
      () => writeCheckpoint({ store, state: { ...state, epoch: 1 } }),
      "head-mismatch",
    );
    expect(store.size).toBe(0);
  });

  it("refuses invalid states", async () => {
    const state = stateOf(agentConversation(2));
    const store = new CountingBlobStore();
    const invalid: unknown[] = [
      { ...state, formatVersion: 1 },
      { ...state, conversationId: "" },
      { ...state, extra: true },
      { ...state, messages: "none" },
      { ...state, messages: [...state.messages, { kind: "user" }] },
      { ...state, turns: [{ clientMessageId: "m", eventId: "e", runId: "r" }] },
    ];
    for (const candidate of invalid) {
      await expectReasonAsync(
        () => writeCheckpoint({ store, state: candidate as CheckpointState }),
        "invalid-state",
      );
    }
    expect(store.size).toBe(0);
  });

  it("refuses a previous ref the store cannot back", async () => {
    const state = stateOf(agentConversation(2));
    const store = new CountingBlobStore();
    const { ref } = await writeCheckpoint({ store, state });
    await expectReasonAsync(
      () => writeCheckpoint({ store, previous: { ...ref, rootId: sha256Hex("none") }, state }),
      "missing-blob",
    );
    await expectReasonAsync(
      () => writeCheckpoint({ store, previous: { ...ref, messageCount: 1 }, state }),
      "manifest-mismatch",
    );
    await expectReasonAsync(
      () => writeCheckpoint({ store, previous: { ...ref, rootId: "x" }, state }),
      "malformed",
    );
  });

  it("works over a store that answers asynchronously", async () => {
    const memory = new CountingBlobStore();
    const store: BlobStore = {
      get: async (id) => memory.get(id),
      has: async (id) => memory.has(id),
      putMany: async (blobs) => memory.putMany(blobs),
    };
    let ref: CheckpointRef | undefined;
    let last: CheckpointState | undefined;
    for (const state of growingStates(agentConversation(20))) {
      ref = (await writeCheckpoint({ store, previous: ref, state })).ref;
      last = state;
    }
    expect(await readCheckpoint({ store, ref: ref! })).toEqual(last);
  });

  it("writes a checkpoint of another conversation without reusing the previous manifest", async () => {
    const built = agentConversation(4);
    const store = new CountingBlobStore();
    const { ref } = await writeCheckpoint({ store, state: stateOf(built) });
    const other = stateOf(built, "conv-2");
    const result = await writeCheckpoint({ store, previous: ref, state: other });
    expect(result).toMatchObject({ blobsWritten: 0, chunksWritten: 1 });
    expect(await readCheckpoint({ store, ref: result.ref })).toEqual(other);
  });
});
