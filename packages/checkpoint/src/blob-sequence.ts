import type { BlobStore, StoredBlob } from "./blob-store.js";
import { CheckpointError } from "./checkpoint-error.js";
import { chunkBlob, loadChunk, storedChunkSize } from "./stored-objects.js";
import type { SequenceKind, SequenceRecord } from "./stored-objects.js";

/**
 * Derives the record of a sequence whose first `keep` ids are those of `previous` and whose
 * remaining ids are `ids`. Touches only the previous tail (and, when `keep` reaches back into
 * full chunks, as many chunks as it must reopen), so an append costs O(appended + chunk size).
 * Returns the new record and the full chunks it had to create.
 */
export async function extendSequence({
  store,
  of,
  previous,
  keep,
  ids,
}: {
  store: BlobStore;
  of: SequenceKind;
  previous: SequenceRecord;
  keep: number;
  ids: readonly string[];
}): Promise<{ record: SequenceRecord; chunks: StoredBlob[] }> {
  const size = storedChunkSize[of];
  if (keep < 0 || keep > previous.count) {
    throw new RangeError(`keep ${keep} is outside the previous sequence of ${previous.count}`);
  }
  // Ids from `start` on are held in `open` (not yet in a chunk that stays); `head` is the newest
  // chunk that stays as it is.
  let start = previous.count - previous.tail.length;
  let head = previous.chunk;
  let open = [...previous.tail];
  while (start > keep) {
    if (head === null) {
      throw new CheckpointError({
        reason: "manifest-mismatch",
        message: `the ${of} sequence ends before index ${start}`,
      });
    }
    const chunk = await loadChunk(store, head, of);
    open = [...chunk.ids, ...open];
    start -= size;
    head = chunk.prev;
  }
  const pending = [...open.slice(0, keep - start), ...ids];
  const chunks: StoredBlob[] = [];
  let offset = 0;
  while (pending.length - offset >= size) {
    const blob = chunkBlob({ of, prev: head, ids: pending.slice(offset, offset + size) });
    chunks.push(blob);
    head = blob.id;
    offset += size;
  }
  return {
    record: { count: keep + ids.length, chunk: head, tail: pending.slice(offset) },
    chunks,
  };
}

/** Every id of a sequence, oldest first, following the chunk links back from the root. */
export async function readSequence({
  store,
  of,
  record,
}: {
  store: BlobStore;
  of: SequenceKind;
  record: SequenceRecord;
}): Promise<string[]> {
  const size = storedChunkSize[of];
  const fullChunks = (record.count - record.tail.length) / size;
  const newestFirst: string[][] = [];
  let next = record.chunk;
  for (let index = 0; index < fullChunks; index += 1) {
    if (next === null) break;
    const chunk = await loadChunk(store, next, of);
    newestFirst.push(chunk.ids);
    next = chunk.prev;
  }
  // Content addressing rules out cycles; a chain of the wrong length is a forged or broken root.
  if (newestFirst.length !== fullChunks || next !== null) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `the ${of} chunk chain does not hold ${fullChunks} chunks as its root declares`,
    });
  }
  return [...newestFirst.reverse().flat(), ...record.tail];
}
