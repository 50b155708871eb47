import { emptyHeadDigest, sha256Hex } from "@cursor/run";
import { parseStateEnvelope } from "./checkpoint-state.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { CheckpointError } from "./checkpoint-error.js";
import { canonicalBytes, stateMessageIds, stateTurnIds } from "./content-id.js";
import { chainedHead, segmentIds, segmentStoreOf } from "./encode-cache.js";
import type {
  CheckpointEncodeCache,
  EncodedSegment,
  SegmentKind,
  SegmentStore,
} from "./encode-cache.js";
import { chainDigests } from "./head-digest.js";
import {
  computeMac,
  encodeBase64Url,
  secretKey,
  tokenPartSeparator,
  versionPart,
} from "./token-codec.js";
import { tokenSegmentSize } from "./token-header.js";
import type { SegmentBlob } from "./token-segment.js";
import type { TokenHeader } from "./token-header.js";

/** The token format version `encodeCheckpoint` writes. */
export const checkpointTokenVersion = 2;

/**
 * Encodes a state as a self-contained, signed, compressed token for a client to keep. The state
 * is verified first (schema, and its head digest against its messages), so no token is ever
 * minted that would not decode. `audience` (e.g. the tenant) is bound into the MAC; pass the
 * same one to `decodeCheckpoint`. With a `cache`, unchanged segments are reused and only the
 * last segment of messages and of turns is compressed again.
 */
export function encodeCheckpoint({
  state,
  secret,
  audience = "",
  cache,
}: {
  state: CheckpointState;
  secret: string | Uint8Array;
  audience?: string | undefined;
  cache?: CheckpointEncodeCache | undefined;
}): string {
  const key = secretKey(secret);
  const { metadata, messages, turns } = parseStateEnvelope(state);
  const store = segmentStoreOf(cache);
  const messageId = stateMessageIds(state, messages);
  const turnId = stateTurnIds(turns);
  store.beginEncoding();
  const segments: EncodedSegment[] = [];

  let head = emptyHeadDigest(metadata.epoch);
  for (const { start, items } of chunks(messages)) {
    const segment =
      store.segmentOfObjects("m", items) ??
      encodeSegment({ store, kind: "m", start, items, contentId: messageId });
    const before = head;
    head = chainedHead(segment, before) ?? chainDigests(before, segmentIds(segment));
    store.rememberChain(segment, before, head);
    segments.push(segment);
  }
  if (head !== metadata.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: `the state's head digest is not the head digest of its ${messages.length} messages in epoch ${metadata.epoch}`,
    });
  }
  for (const { start, items } of chunks(turns)) {
    segments.push(
      store.segmentOfObjects("t", items) ??
        encodeSegment({ store, kind: "t", start, items, contentId: turnId }),
    );
  }

  const header: TokenHeader = {
    conversationId: metadata.conversationId,
    epoch: metadata.epoch,
    headDigest: metadata.headDigest,
    ...(metadata.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: metadata.latestRequestContextId }),
    ...(metadata.promptSpecDigest === undefined
      ? {}
      : { promptSpecDigest: metadata.promptSpecDigest }),
    messageCount: messages.length,
    turnCount: turns.length,
    segments: segments.map((segment) => [
      segment.kind satisfies SegmentKind,
      segment.count,
      segment.compressedLength,
      segment.size,
      segment.digest,
    ]),
  };
  store.endEncoding();
  const headerBytes = canonicalBytes(header);
  const mac = computeMac({
    key,
    version: checkpointTokenVersion,
    audience,
    content: headerBytes,
  });
  return [
    versionPart(checkpointTokenVersion),
    encodeBase64Url(mac),
    encodeBase64Url(headerBytes),
    ...segments.map((segment) => segment.part),
  ].join(tokenPartSeparator);
}

function* chunks(
  items: readonly unknown[],
): Generator<{ start: number; items: readonly unknown[] }> {
  for (let start = 0; start < items.length; start += tokenSegmentSize) {
    yield { start, items: items.slice(start, start + tokenSegmentSize) };
  }
}

function encodeSegment({
  store,
  kind,
  start,
  items,
  contentId,
}: {
  store: SegmentStore;
  kind: SegmentKind;
  start: number;
  items: readonly unknown[];
  /** The content id of the state's item at `index` (of messages or turns, as `kind` says). */
  contentId: (index: number) => string;
}): EncodedSegment {
  const known = store.knownIds(kind, items);
  const ids = items.map((_, offset) => known(offset) ?? contentId(start + offset));
  const segment = store.segment({ kind, ids, items, blobs: () => blobsOf(items, ids) });
  store.rememberOpen(kind, items, segment);
  return segment;
}

function blobsOf(items: readonly unknown[], ids: readonly string[]): SegmentBlob[] {
  return items.map((item, index) => {
    const bytes = canonicalBytes(item);
    const id = ids[index];
    // Decoding hashes these bytes against the id; a difference would be a bug here, and a token
    // that cannot decode must never be handed out.
    if (id === undefined || sha256Hex(bytes) !== id) {
      throw new Error(`internal: blob bytes do not hash to content id ${id}`);
    }
    return { id, bytes };
  });
}
