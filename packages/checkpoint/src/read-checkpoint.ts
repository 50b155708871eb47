import { readSequence } from "./blob-sequence.js";
import type { BlobStore } from "./blob-store.js";
import { parseMessageBlob, parseTurnBlob } from "./blob-content.js";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointRefSchema } from "./checkpoint-ref.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import { checkpointFormatVersion, describeIssues } from "./checkpoint-state.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { headDigestOf } from "./head-digest.js";
import { checkRootMatchesRef, loadRoot, loadVerified } from "./stored-objects.js";

/**
 * Reads a stored checkpoint back, verifying the root against its ref, every chunk and blob hash,
 * the chunk chain lengths and the head digest before returning anything. With `conversationId`,
 * a checkpoint of another conversation is refused as `foreign-conversation`.
 */
export async function readCheckpoint({
  store,
  ref,
  conversationId,
}: {
  store: BlobStore;
  ref: CheckpointRef;
  conversationId?: string | undefined;
}): Promise<CheckpointState> {
  const parsedRef = checkpointRefSchema.safeParse(ref);
  if (!parsedRef.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `invalid checkpoint ref: ${describeIssues(parsedRef.error)}`,
      cause: parsedRef.error,
    });
  }
  if (conversationId !== undefined && parsedRef.data.conversationId !== conversationId) {
    throw new CheckpointError({
      reason: "foreign-conversation",
      message: `the checkpoint belongs to conversation ${parsedRef.data.conversationId}, not ${conversationId}`,
    });
  }
  const root = await loadRoot(store, parsedRef.data.rootId);
  checkRootMatchesRef(root, parsedRef.data);
  const messageIds = await readSequence({ store, of: "messages", record: root.messages });
  const turnIds = await readSequence({ store, of: "turns", record: root.turns });
  if (headDigestOf(root.epoch, messageIds) !== root.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: `the messages of checkpoint ${parsedRef.data.rootId} do not chain to its head digest`,
      objectId: parsedRef.data.rootId,
    });
  }
  const messages = [];
  for (const id of messageIds) {
    messages.push(parseMessageBlob(await loadVerified(store, id, "message blob"), id));
  }
  const turns = [];
  for (const id of turnIds) {
    turns.push(parseTurnBlob(await loadVerified(store, id, "turn blob"), id));
  }
  return {
    formatVersion: checkpointFormatVersion,
    conversationId: root.conversationId,
    epoch: root.epoch,
    messages,
    turns,
    ...(root.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: root.latestRequestContextId }),
    ...(root.promptSpecDigest === undefined ? {} : { promptSpecDigest: root.promptSpecDigest }),
    headDigest: root.headDigest,
  };
}
