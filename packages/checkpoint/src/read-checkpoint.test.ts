import { canonicalJson, messageDigest, sha256Hex } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { CountingBlobStore } from "./__fixtures__/counting-store.js";
import {
  catchCheckpointErrorAsync,
  expectReasonAsync,
} from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { conversationId, stateOf } from "./__fixtures__/states.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import { readCheckpoint } from "./read-checkpoint.js";
import { chunkBlob, rootBlob, toStoredBlob } from "./stored-objects.js";
import type { StoredRoot } from "./stored-objects.js";
import { writeCheckpoint } from "./write-checkpoint.js";

async function stored(turns: number) {
  const state = stateOf(agentConversation(turns));
  const store = new CountingBlobStore();
  const { ref } = await writeCheckpoint({ store, state });
  const root = JSON.parse(Buffer.from(store.get(ref.rootId)!).toString("utf8")) as StoredRoot;
  return { state, store, ref, root };
}

/** Puts a hand-made root and returns a ref that agrees with it. */
function forgeRoot(store: CountingBlobStore, root: Omit<StoredRoot, "type" | "version">) {
  const blob = rootBlob(root);
  store.putMany([blob]);
  const ref: CheckpointRef = {
    rootId: blob.id,
    conversationId: root.conversationId,
    epoch: root.epoch,
    headDigest: root.headDigest,
    messageCount: root.messages.count,
    turnCount: root.turns.count,
  };
  return ref;
}

describe("readCheckpoint", () => {
  it("reads across chunk chains (messages and turns) back to the exact state", async () => {
    const { state, store, ref, root } = await stored(20);
    // 2 request contexts + 20 × 4 messages: two full chunks of 32 and a tail of 18.
    expect(root.messages.count).toBe(82);
    expect(root.messages.tail).toHaveLength(18);
    expect(root.turns.tail).toHaveLength(4);
    store.resetCounts();
    expect(await readCheckpoint({ store, ref, conversationId })).toEqual(state);
    // root + 2 message chunks + 1 turn chunk + 82 messages + 20 turns
    expect(store.gets).toBe(1 + 2 + 1 + 82 + 20);
  });

  it("refuses a message blob that does not hash to its id, naming it", async () => {
    const { state, store, ref } = await stored(3);
    const id = messageDigest(state.messages[5]!);
    store.corrupt(id, Buffer.from(canonicalJson({ ...state.messages[5], id: "x" })));
    const error = await catchCheckpointErrorAsync(() => readCheckpoint({ store, ref }));
    expect(error.reason).toBe("blob-mismatch");
    expect(error.objectId).toBe(id);
  });

  it("refuses a missing blob, chunk or root", async () => {
    const { state, store, ref, root } = await stored(20);
    const message = messageDigest(state.messages[70]!);
    const withoutMessage = await stored(20);
    withoutMessage.store.delete(message);
    await expectReasonAsync(
      () => readCheckpoint({ store: withoutMessage.store, ref }),
      "missing-blob",
    );
    store.delete(root.messages.chunk!);
    const error = await catchCheckpointErrorAsync(() => readCheckpoint({ store, ref }));
    expect(error).toMatchObject({ reason: "missing-blob", objectId: root.messages.chunk });
    store.delete(ref.rootId);
    await expectReasonAsync(() => readCheckpoint({ store, ref }), "missing-blob");
  });

  it("refuses a ref that disagrees with its root, or names another conversation", async () => {
    const { store, ref } = await stored(3);
    for (const lie of [
      { headDigest: sha256Hex("x") },
      { messageCount: 12 },
      { turnCount: 4 },
      { epoch: 1 },
      { conversationId: "conv-2" },
    ]) {
      await expectReasonAsync(
        () => readCheckpoint({ store, ref: { ...ref, ...lie } }),
        "manifest-mismatch",
      );
    }
    await expectReasonAsync(
      () => readCheckpoint({ store, ref, conversationId: "conv-2" }),
      "foreign-conversation",
    );
    await expectReasonAsync(
      () => readCheckpoint({ store, ref: { ...ref, rootId: "nope" } }),
      "malformed",
    );
  });

  it("refuses a root whose messages do not chain to its head digest", async () => {
    const { store, root } = await stored(3);
    const forged = forgeRoot(store, {
      ...root,
      messages: { ...root.messages, tail: [...root.messages.tail].reverse() },
    });
    await expectReasonAsync(() => readCheckpoint({ store, ref: forged }), "head-mismatch");
  });

  it("refuses roots with inconsistent sequences", async () => {
    const { store, root } = await stored(20);
    const forgeries = [
      { ...root, messages: { ...root.messages, count: root.messages.count + 1 } },
      { ...root, messages: { ...root.messages, chunk: null } },
      { ...root, turns: { count: 16, chunk: null, tail: root.turns.tail } },
    ];
    for (const forgery of forgeries) {
      await expectReasonAsync(
        () => readCheckpoint({ store, ref: forgeRoot(store, forgery) }),
        "manifest-mismatch",
      );
    }
  });

  it("refuses a chunk chain longer or shorter than the root declares", async () => {
    const { store, root } = await stored(20);
    // A third full chunk on top of the two the root declares.
    const extra = chunkBlob({
      of: "messages",
      prev: root.messages.chunk,
      ids: Array.from({ length: 32 }, () => root.messages.tail[0]!),
    });
    store.putMany([extra]);
    const longer = forgeRoot(store, {
      ...root,
      messages: { count: root.messages.count, chunk: extra.id, tail: root.messages.tail },
    });
    await expectReasonAsync(() => readCheckpoint({ store, ref: longer }), "manifest-mismatch");
    // A turn chunk used where a message chunk belongs.
    const wrongKind = forgeRoot(store, {
      ...root,
      messages: { count: 32 + 3, chunk: root.turns.chunk, tail: root.messages.tail.slice(0, 3) },
    });
    await expectReasonAsync(() => readCheckpoint({ store, ref: wrongKind }), "manifest-mismatch");
  });

  it("refuses objects of the wrong type or version, and blobs that are not messages", async () => {
    const { state, store, root } = await stored(3);
    const future = toStoredBlob({ ...root, version: 3 });
    const notARoot = toStoredBlob({ type: "cursor.checkpoint.chunk", version: 2 });
    const notJson = { id: sha256Hex("{"), bytes: Buffer.from("{") };
    store.putMany([future, notARoot, notJson]);
    const refTo = (rootId: string) => ({
      rootId,
      conversationId,
      epoch: 0,
      headDigest: state.headDigest,
      messageCount: 13,
      turnCount: 3,
    });
    await expectReasonAsync(
      () => readCheckpoint({ store, ref: refTo(future.id) }),
      "unknown-version",
    );
    await expectReasonAsync(() => readCheckpoint({ store, ref: refTo(notARoot.id) }), "malformed");
    await expectReasonAsync(() => readCheckpoint({ store, ref: refTo(notJson.id) }), "malformed");
    // A turn blob listed as a message: the head digest would not chain, so forge that too.
    const turnId = root.turns.tail[0]!;
    const swapped = forgeRoot(store, {
      ...root,
      messages: { count: 1, chunk: null, tail: [turnId] },
      headDigest: sha256Hex(`${sha256Hex("cursor.history.epoch:0")}${turnId}`),
    });
    await expectReasonAsync(() => readCheckpoint({ store, ref: swapped }), "malformed");
  });

  it("refuses a message blob stored in a non-canonical form", async () => {
    const { state, store, root } = await stored(1);
    const pretty = Buffer.from(JSON.stringify(state.messages[0], null, 2));
    const blob = { id: sha256Hex(pretty), bytes: pretty };
    store.putMany([blob]);
    const forged = forgeRoot(store, {
      ...root,
      messages: { count: 1, chunk: null, tail: [blob.id] },
      headDigest: sha256Hex(`${sha256Hex("cursor.history.epoch:0")}${blob.id}`),
    });
    await expectReasonAsync(() => readCheckpoint({ store, ref: forged }), "malformed");
  });
});
