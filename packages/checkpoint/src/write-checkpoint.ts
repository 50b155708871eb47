import { emptyHeadDigest } from "@cursor/run";
import { extendSequence } from "./blob-sequence.js";
import type { Awaitable, BlobStore, StoredBlob } from "./blob-store.js";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointRefSchema } from "./checkpoint-ref.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import { describeIssues, parseStateEnvelope } from "./checkpoint-state.js";
import type { CheckpointMetadata, CheckpointState } from "./checkpoint-state.js";
import { stateMessageIds, stateTurnIds } from "./content-id.js";
import { chainDigests } from "./head-digest.js";
import {
  checkRootMatchesRef,
  emptySequence,
  loadChunk,
  loadRoot,
  rootBlob,
  storedChunkSize,
  toStoredBlob,
} from "./stored-objects.js";
import type { SequenceRecord, StoredRoot } from "./stored-objects.js";

export interface WriteCheckpointResult {
  readonly ref: CheckpointRef;
  /** Bytes handed to `putMany` (objects the store already held are not written again). */
  readonly bytesWritten: number;
  /** Message and turn blobs written. */
  readonly blobsWritten: number;
  /** Manifest objects written: full chunks and the root. */
  readonly chunksWritten: number;
}

interface SequencePlan {
  readonly previous: SequenceRecord;
  /** Leading ids taken from `previous` unchanged. */
  readonly keep: number;
  /** Ids from `keep` on, and the blobs they name. */
  readonly ids: readonly string[];
  readonly blobs: readonly StoredBlob[];
}

/**
 * Persists a checkpoint as content-addressed objects. With `previous` (the ref this state grew
 * from), only the new message and turn blobs, the root and at most a few full chunks are
 * written, and only the new part of the state is read: the state's head digest, chained from the
 * previous head over the new messages, proves the earlier messages are the ones already stored.
 * Without it, or when the state does not extend it (a new epoch), the whole state is verified
 * and objects the store already holds are skipped.
 */
export async function writeCheckpoint({
  store,
  previous,
  state,
}: {
  store: BlobStore;
  previous?: CheckpointRef | undefined;
  state: CheckpointState;
}): Promise<WriteCheckpointResult> {
  const { metadata, messages, turns } = parseStateEnvelope(state);
  const reader = withReadMemo(store);
  const previousRoot =
    previous === undefined ? undefined : await loadPreviousRoot(reader, previous);
  const sameConversation = previousRoot?.conversationId === metadata.conversationId;
  const messagePlan = planMessages({
    idAt: stateMessageIds(state, messages),
    metadata,
    messages,
    previous: sameConversation ? previousRoot : undefined,
  });
  const turnPlan = await planTurns({
    store: reader,
    turns,
    previous: sameConversation ? previousRoot : undefined,
  });
  const messageSequence = await extendSequence({ store: reader, of: "messages", ...messagePlan });
  const turnSequence = await extendSequence({ store: reader, of: "turns", ...turnPlan });
  const root = rootBlob({
    conversationId: metadata.conversationId,
    epoch: metadata.epoch,
    headDigest: metadata.headDigest,
    ...(metadata.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: metadata.latestRequestContextId }),
    ...(metadata.promptSpecDigest === undefined
      ? {}
      : { promptSpecDigest: metadata.promptSpecDigest }),
    messages: messageSequence.record,
    turns: turnSequence.record,
  });

  const contentBlobs = await missingFrom(store, [...messagePlan.blobs, ...turnPlan.blobs]);
  const manifestBlobs = await missingFrom(store, [
    ...messageSequence.chunks,
    ...turnSequence.chunks,
    root,
  ]);
  const toWrite = [...contentBlobs, ...manifestBlobs];
  if (toWrite.length > 0) await store.putMany(toWrite);
  return {
    ref: {
      rootId: root.id,
      conversationId: metadata.conversationId,
      epoch: metadata.epoch,
      headDigest: metadata.headDigest,
      messageCount: messageSequence.record.count,
      turnCount: turnSequence.record.count,
    },
    bytesWritten: toWrite.reduce((sum, blob) => sum + blob.bytes.byteLength, 0),
    blobsWritten: contentBlobs.length,
    chunksWritten: manifestBlobs.length,
  };
}

async function loadPreviousRoot(store: BlobStore, previous: CheckpointRef): Promise<StoredRoot> {
  const parsed = checkpointRefSchema.safeParse(previous);
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `invalid previous checkpoint ref: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const ref = parsed.data;
  const root = await loadRoot(store, ref.rootId);
  checkRootMatchesRef(root, ref);
  return root;
}

function planMessages({
  idAt,
  metadata,
  messages,
  previous,
}: {
  /** The content id of `messages[index]` (`stateMessageIds`). */
  idAt: (index: number) => string;
  metadata: CheckpointMetadata;
  messages: readonly unknown[];
  previous: StoredRoot | undefined;
}): SequencePlan {
  if (previous !== undefined && previous.epoch === metadata.epoch) {
    const { count, tail } = previous.messages;
    const tailStart = count - tail.length;
    // The stored tail is re-checked against the state (at most one chunk of ids): a cheap guard
    // against a state that claims the previous head but carries other messages.
    let extendsPrevious = messages.length >= count;
    for (let index = tailStart; extendsPrevious && index < count; index += 1) {
      extendsPrevious = idAt(index) === tail[index - tailStart];
    }
    if (extendsPrevious) {
      const ids = range(count, messages.length).map(idAt);
      if (chainDigests(previous.headDigest, ids) === metadata.headDigest) {
        return {
          previous: previous.messages,
          keep: count,
          ids,
          blobs: range(count, messages.length).map((index) => messageBlob(messages, index, idAt)),
        };
      }
    }
  }
  const ids = range(0, messages.length).map(idAt);
  if (chainDigests(emptyHeadDigest(metadata.epoch), ids) !== metadata.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: `the state's head digest is not the head digest of its ${messages.length} messages in epoch ${metadata.epoch}`,
    });
  }
  return {
    previous: emptySequence,
    keep: 0,
    ids,
    blobs: range(0, messages.length).map((index) => messageBlob(messages, index, idAt)),
  };
}

async function planTurns({
  store,
  turns,
  previous,
}: {
  store: BlobStore;
  turns: readonly unknown[];
  previous: StoredRoot | undefined;
}): Promise<SequencePlan> {
  const idAt = stateTurnIds(turns);
  let keep = 0;
  if (previous !== undefined) {
    // Turns are append-only except the newest, which grows while its run continues. The turns of
    // the previous tail, and always the newest one, are compared; older turns (in full chunks)
    // are taken as stored.
    const { count, tail, chunk } = previous.turns;
    let compareFrom = count - tail.length;
    let compared = [...tail];
    if (tail.length === 0 && chunk !== null) {
      compareFrom = count - storedChunkSize.turns;
      compared = (await loadChunk(store, chunk, "turns")).ids;
    }
    keep = Math.min(count, turns.length);
    for (let index = compareFrom; index < keep; index += 1) {
      if (idAt(index) !== compared[index - compareFrom]) {
        keep = index;
        break;
      }
    }
  }
  const ids = range(keep, turns.length).map(idAt);
  return {
    previous: previous?.turns ?? emptySequence,
    keep,
    ids,
    blobs: range(keep, turns.length).map((index) => {
      const blob = toStoredBlob(turns[index]);
      checkBlobId(blob, idAt(index));
      return blob;
    }),
  };
}

function messageBlob(
  messages: readonly unknown[],
  index: number,
  idAt: (index: number) => string,
): StoredBlob {
  const blob = toStoredBlob(messages[index]);
  checkBlobId(blob, idAt(index));
  return blob;
}

/** The blob written must be the one the manifest names; differing would be a bug here. */
function checkBlobId(blob: StoredBlob, expected: string): void {
  if (blob.id !== expected) {
    throw new Error(`internal: blob ${blob.id} was written for content id ${expected}`);
  }
}

/** Within one write, an object read twice (a chunk compared, then reopened) is fetched once. */
function withReadMemo(store: BlobStore): BlobStore {
  const reads = new Map<string, Awaitable<Uint8Array | undefined>>();
  return {
    get: (id) => {
      const known = reads.get(id);
      if (known !== undefined) return known;
      const read = store.get(id);
      reads.set(id, read);
      return read;
    },
    has: (id) => store.has(id),
    putMany: (blobs) => store.putMany(blobs),
  };
}

async function missingFrom(store: BlobStore, blobs: readonly StoredBlob[]): Promise<StoredBlob[]> {
  const seen = new Set<string>();
  const missing: StoredBlob[] = [];
  for (const blob of blobs) {
    if (seen.has(blob.id)) continue;
    seen.add(blob.id);
    if (!(await store.has(blob.id))) missing.push(blob);
  }
  return missing;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, offset) => from + offset);
}
