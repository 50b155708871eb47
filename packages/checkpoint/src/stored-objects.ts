import { sha256Hex } from "@cursor/run";
import { z } from "zod";
import type { BlobStore, StoredBlob } from "./blob-store.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import { CheckpointError } from "./checkpoint-error.js";
import {
  checkpointFormatVersion,
  checkpointIdSchema,
  describeIssues,
  sha256HexSchema,
} from "./checkpoint-state.js";
import { canonicalBytes } from "./content-id.js";

// The stored form (format version 2). Besides the message and turn blobs (canonical JSON,
// content-addressed), a checkpoint is two kinds of manifest object, both canonical JSON:
//
//   root  { type: "cursor.checkpoint.root", version, metadata, messages: seq, turns: seq }
//   chunk { type: "cursor.checkpoint.chunk", version, of, prev, ids }
//   seq   { count, chunk, tail }
//
// A sequence of blob ids (messages or turns) is a linked list of *full* chunks of a fixed size
// (newest last, each pointing at the one before) plus a tail of fewer ids kept in the root. An
// append writes the new blobs, the root, and a new full chunk only when the tail fills up, so the
// bytes written per turn do not depend on how long the conversation already is.

export type SequenceKind = "messages" | "turns";

/** Ids per full chunk. Small chunks keep the root (which holds the tail) small. */
export const storedChunkSize: Readonly<Record<SequenceKind, number>> = {
  messages: 32,
  turns: 16,
};

const rootType = "cursor.checkpoint.root";
const chunkType = "cursor.checkpoint.chunk";

const sequenceRecordSchema = z.strictObject({
  count: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** The newest full chunk, or null when every id is in the tail. */
  chunk: sha256HexSchema.nullable(),
  tail: z.array(sha256HexSchema),
});

const storedRootSchema = z.strictObject({
  type: z.literal(rootType),
  version: z.literal(checkpointFormatVersion),
  conversationId: checkpointIdSchema,
  epoch: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  headDigest: sha256HexSchema,
  latestRequestContextId: checkpointIdSchema.optional(),
  promptSpecDigest: sha256HexSchema.optional(),
  messages: sequenceRecordSchema,
  turns: sequenceRecordSchema,
});

const storedChunkSchema = z.strictObject({
  type: z.literal(chunkType),
  version: z.literal(checkpointFormatVersion),
  of: z.enum(["messages", "turns"]),
  prev: sha256HexSchema.nullable(),
  ids: z.array(sha256HexSchema),
});

/** Only the envelope, read first so an unknown version is reported as such. */
const envelopeSchema = z.looseObject({ type: z.string(), version: z.number() });

export type SequenceRecord = z.infer<typeof sequenceRecordSchema>;
export type StoredRoot = z.infer<typeof storedRootSchema>;
export type StoredChunk = z.infer<typeof storedChunkSchema>;

export const emptySequence: SequenceRecord = { count: 0, chunk: null, tail: [] };

/** Serialises a manifest object or blob value to a content-addressed blob. */
export function toStoredBlob(value: unknown): StoredBlob {
  const bytes = canonicalBytes(value);
  return { id: sha256Hex(bytes), bytes };
}

export function rootBlob(root: Omit<StoredRoot, "type" | "version">): StoredBlob {
  return toStoredBlob({ type: rootType, version: checkpointFormatVersion, ...root });
}

export function chunkBlob(chunk: Omit<StoredChunk, "type" | "version">): StoredBlob {
  return toStoredBlob({ type: chunkType, version: checkpointFormatVersion, ...chunk });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Fetches an object and proves it is the one its id names. */
export async function loadVerified(store: BlobStore, id: string, what: string): Promise<Buffer> {
  const bytes = await store.get(id);
  if (bytes === undefined) {
    throw new CheckpointError({
      reason: "missing-blob",
      message: `the store has no ${what} ${id}`,
      objectId: id,
    });
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (sha256Hex(buffer) !== id) {
    throw new CheckpointError({
      reason: "blob-mismatch",
      message: `${what} ${id} does not hash to its id`,
      objectId: id,
    });
  }
  return buffer;
}

/** Strict UTF-8 then JSON; anything else is malformed. */
export function parseJsonBytes(bytes: Uint8Array, what: string, objectId?: string): unknown {
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch (cause) {
    throw new CheckpointError({
      reason: "malformed",
      message: `${what} is not UTF-8 JSON`,
      ...(objectId === undefined ? {} : { objectId }),
      cause,
    });
  }
}

function parseManifestObject<T>({
  bytes,
  id,
  type,
  schema,
}: {
  bytes: Buffer;
  id: string;
  type: string;
  schema: z.ZodType<T>;
}): T {
  const json = parseJsonBytes(bytes, type, id);
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success || envelope.data.type !== type) {
    throw new CheckpointError({
      reason: "malformed",
      message: `object ${id} is not a ${type}`,
      objectId: id,
    });
  }
  if (envelope.data.version !== checkpointFormatVersion) {
    throw new CheckpointError({
      reason: "unknown-version",
      message: `${type} ${id} has format version ${envelope.data.version}; this build reads ${checkpointFormatVersion}`,
      objectId: id,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `${type} ${id} is invalid: ${describeIssues(parsed.error)}`,
      objectId: id,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

export async function loadRoot(store: BlobStore, id: string): Promise<StoredRoot> {
  const bytes = await loadVerified(store, id, "checkpoint root");
  const root = parseManifestObject({ bytes, id, type: rootType, schema: storedRootSchema });
  checkSequenceLayout(root.messages, "messages", id);
  checkSequenceLayout(root.turns, "turns", id);
  return root;
}

export async function loadChunk(
  store: BlobStore,
  id: string,
  of: SequenceKind,
): Promise<StoredChunk> {
  const bytes = await loadVerified(store, id, "manifest chunk");
  const chunk = parseManifestObject({ bytes, id, type: chunkType, schema: storedChunkSchema });
  if (chunk.of !== of || chunk.ids.length !== storedChunkSize[of]) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `chunk ${id} holds ${chunk.ids.length} ${chunk.of} ids where a full ${of} chunk was expected`,
      objectId: id,
    });
  }
  return chunk;
}

/** A record's shape follows from its count: full chunks, then a tail shorter than a chunk. */
function checkSequenceLayout(record: SequenceRecord, of: SequenceKind, rootId: string): void {
  const size = storedChunkSize[of];
  const chunked = record.count - record.tail.length;
  const valid =
    record.tail.length < size &&
    chunked >= 0 &&
    chunked % size === 0 &&
    (chunked === 0) === (record.chunk === null);
  if (!valid) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `root ${rootId} has an inconsistent ${of} sequence (count ${record.count}, tail ${record.tail.length})`,
      objectId: rootId,
    });
  }
}

/** A ref is a claim about its root; a root that says otherwise is not the checkpoint meant. */
export function checkRootMatchesRef(root: StoredRoot, ref: CheckpointRef): void {
  const matches =
    root.conversationId === ref.conversationId &&
    root.epoch === ref.epoch &&
    root.headDigest === ref.headDigest &&
    root.messages.count === ref.messageCount &&
    root.turns.count === ref.turnCount;
  if (!matches) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `checkpoint root ${ref.rootId} does not match its ref`,
      objectId: ref.rootId,
    });
  }
}
