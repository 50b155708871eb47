import { emptyHeadDigest } from "@cursor/run";
import { z } from "zod";
import { CheckpointError } from "./checkpoint-error.js";
import {
  checkpointFormatVersion,
  describeIssues,
  parseStateEnvelope,
  sha256HexSchema,
} from "./checkpoint-state.js";
import type { CheckpointState, CheckpointTurn } from "./checkpoint-state.js";
import { canonicalBytes, stateMessageIds, stateTurnIds } from "./content-id.js";
import {
  checkConversation,
  decodeCheckpoint,
  decodeSegmentParts,
  openToken,
  optionalMetadata,
  segmentCounts,
} from "./decode-checkpoint.js";
import type { CheckpointSummary } from "./decode-checkpoint.js";
import { SegmentStore, segmentIds } from "./encode-cache.js";
import type { EncodedSegment, SegmentKind } from "./encode-cache.js";
import { chainDigests } from "./head-digest.js";
import { parseJsonBytes } from "./stored-objects.js";
import {
  computeMac,
  decodeBase64Url,
  defaultMaxCheckpointBytes,
  encodeBase64Url,
  secretKey,
  tokenPartSeparator,
  verifyMac,
  versionPart,
} from "./token-codec.js";
import { tokenHeaderSchema, tokenSegmentSize } from "./token-header.js";
import type { CanonicalMessage } from "@cursor/run";

// Format version 3 of the portable token, the delta form:
//
//   cp3 . mac . header . segment . segment ...
//
// Like version 2, but the header names a `base` (message count, turn count and head digest of
// the epoch it extends) and the segments hold only the messages and turns after it. Its size
// grows with what the turn added, not with the conversation. A delta whose base is empty
// (0 messages, 0 turns) is complete on its own; the others are decoded as a chain from one
// (`decodeCheckpointChain`). The MAC is over the header with the domain `cursor.checkpoint.v3`,
// so a delta header can never pass for a full one.

export const checkpointDeltaTokenVersion = 3;

/** Where a delta starts: what the receiver holds already. */
export interface CheckpointDeltaBase {
  readonly messageCount: number;
  readonly turnCount: number;
  /** `HistoryLog.headDigest` after `messageCount` messages of the state's epoch. */
  readonly headDigest: string;
}

const countSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const deltaHeaderSchema = tokenHeaderSchema.extend({
  base: z.strictObject({
    messageCount: countSchema,
    turnCount: countSchema,
    headDigest: sha256HexSchema,
  }),
});

type DeltaHeader = z.infer<typeof deltaHeaderSchema>;

/** A delta's summary: a full one's plus its base. */
export interface CheckpointDeltaSummary extends CheckpointSummary {
  readonly base: CheckpointDeltaBase;
}

/**
 * Encodes the part of `state` after `base` as a signed delta token. The new messages must chain
 * from `base.headDigest` to the state's head digest (checked: no token is minted that would not
 * decode). Work and size are proportional to what follows the base; message ids come from the
 * content-id memo (a `HistoryLog`'s messages are not hashed again).
 */
export function encodeCheckpointDelta({
  state,
  base,
  secret,
  audience = "",
}: {
  state: CheckpointState;
  base: CheckpointDeltaBase;
  secret: string | Uint8Array;
  audience?: string | undefined;
}): string {
  const key = secretKey(secret);
  const { metadata, messages, turns } = parseStateEnvelope(state);
  if (
    !Number.isSafeInteger(base.messageCount) ||
    !Number.isSafeInteger(base.turnCount) ||
    base.messageCount < 0 ||
    base.turnCount < 0 ||
    base.messageCount > messages.length ||
    base.turnCount > turns.length
  ) {
    throw new CheckpointError({
      reason: "invalid-state",
      message: `the delta base (${base.messageCount} messages, ${base.turnCount} turns) is not within the state (${messages.length}, ${turns.length})`,
    });
  }
  if (base.messageCount === 0 && base.headDigest !== emptyHeadDigest(metadata.epoch)) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: "a delta from the start of an epoch has that epoch's empty head digest as its base",
    });
  }
  const store = new SegmentStore(Number.POSITIVE_INFINITY);
  const messageSegments = encodeSegments({
    store,
    kind: "m",
    items: messages.slice(base.messageCount),
    start: base.messageCount,
    contentId: stateMessageIds(state, messages),
  });
  const head = chainDigests(
    base.headDigest,
    messageSegments.flatMap((segment) => segmentIds(segment)),
  );
  if (head !== metadata.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: `the messages after the base do not chain from its head digest to the state's`,
    });
  }
  const segments = [
    ...messageSegments,
    ...encodeSegments({
      store,
      kind: "t",
      items: turns.slice(base.turnCount),
      start: base.turnCount,
      contentId: stateTurnIds(turns),
    }),
  ];
  const header: DeltaHeader = {
    conversationId: metadata.conversationId,
    epoch: metadata.epoch,
    headDigest: metadata.headDigest,
    ...optionalMetadata(metadata),
    messageCount: messages.length,
    turnCount: turns.length,
    base: {
      messageCount: base.messageCount,
      turnCount: base.turnCount,
      headDigest: base.headDigest,
    },
    segments: segments.map((segment) => [
      segment.kind,
      segment.count,
      segment.compressedLength,
      segment.size,
      segment.digest,
    ]),
  };
  const headerBytes = canonicalBytes(header);
  const mac = computeMac({
    key,
    version: checkpointDeltaTokenVersion,
    audience,
    content: headerBytes,
  });
  return [
    versionPart(checkpointDeltaTokenVersion),
    encodeBase64Url(mac),
    encodeBase64Url(headerBytes),
    ...segments.map((segment) => segment.part),
  ].join(tokenPartSeparator);
}

function encodeSegments({
  store,
  kind,
  items,
  start,
  contentId,
}: {
  store: SegmentStore;
  kind: SegmentKind;
  items: readonly unknown[];
  start: number;
  /** The content id of the state's item at `index` (of messages or turns, as `kind` says). */
  contentId: (index: number) => string;
}): EncodedSegment[] {
  const segments: EncodedSegment[] = [];
  for (let offset = 0; offset < items.length; offset += tokenSegmentSize) {
    const chunk = items.slice(offset, offset + tokenSegmentSize);
    const ids = chunk.map((_, index) => contentId(start + offset + index));
    segments.push(
      store.segment({
        kind,
        ids,
        items: chunk,
        blobs: () => chunk.map((item, index) => ({ id: ids[index]!, bytes: canonicalBytes(item) })),
      }),
    );
  }
  return segments;
}

/** MAC, header schema, segment layout and segment count of a version 3 token. */
/** A delta header's limit: it names base and head, and one entry per segment (a few per turn). */
const maxDeltaHeaderChars = 1024 * 1024;

/**
 * A delta token's parts, found with bounded work before the MAC: the version, the MAC and the
 * (capped) header are located by position; the segments are split off only once the header has
 * verified.
 */
function deltaTokenParts(token: string): {
  mac: string;
  headerText: string;
  segments: () => readonly string[];
} {
  const versionEnd = token.indexOf(tokenPartSeparator);
  const macEnd = versionEnd === -1 ? -1 : token.indexOf(tokenPartSeparator, versionEnd + 1);
  if (macEnd === -1) {
    throw new CheckpointError({ reason: "truncated", message: "the checkpoint has no header" });
  }
  const headerEnd = token.indexOf(tokenPartSeparator, macEnd + 1);
  const headerText = token.slice(macEnd + 1, headerEnd === -1 ? token.length : headerEnd);
  if (headerText.length > maxDeltaHeaderChars) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the delta checkpoint header is ${headerText.length} characters; the limit is ${maxDeltaHeaderChars}`,
    });
  }
  const mac = token.slice(versionEnd + 1, macEnd);
  // The segment parts only (what decodeSegmentParts reads from index 0).
  const segments = (): readonly string[] =>
    headerEnd === -1 ? [] : token.slice(headerEnd + 1).split(tokenPartSeparator);
  return { mac, headerText, segments };
}

function verifiedDeltaHeader({
  token,
  key,
  audience,
  maxBytes,
}: {
  token: string;
  key: Buffer;
  audience: string;
  maxBytes: number;
}): DeltaHeader {
  const located = deltaTokenParts(token);
  const mac = decodeBase64Url(located.mac, "the MAC");
  const headerBytes = decodeBase64Url(located.headerText, "the header");
  verifyMac({ key, version: checkpointDeltaTokenVersion, audience, content: headerBytes, mac });
  const parsed = deltaHeaderSchema.safeParse(parseJsonBytes(headerBytes, "the header"));
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `invalid delta checkpoint header: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const header = parsed.data;
  const { base } = header;
  if (base.messageCount > header.messageCount || base.turnCount > header.turnCount) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: "the delta's base is past its head",
    });
  }
  const expected = [
    ...segmentCounts("m", header.messageCount - base.messageCount),
    ...segmentCounts("t", header.turnCount - base.turnCount),
  ];
  const actual = header.segments.map(([kind, count]) => `${kind}${count}`);
  if (expected.join() !== actual.join()) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `the segments (${actual.join(" ")}) do not hold the delta's ${header.messageCount - base.messageCount} messages and ${header.turnCount - base.turnCount} turns`,
    });
  }
  const size = header.segments.reduce((sum, [, , , segmentSize]) => sum + segmentSize, 0);
  if (size > maxBytes) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the checkpoint decompresses to ${size} bytes; the limit is ${maxBytes}`,
    });
  }
  const segmentParts = located.segments().length;
  if (segmentParts !== header.segments.length) {
    throw new CheckpointError({
      reason: segmentParts < header.segments.length ? "truncated" : "malformed",
      message: `the header declares ${header.segments.length} segments; the checkpoint has ${segmentParts}`,
    });
  }
  return header;
}

interface DeltaContent {
  readonly header: DeltaHeader;
  readonly messages: CanonicalMessage[];
  readonly turns: CheckpointTurn[];
}

/** A delta's header and blobs, every segment and blob verified, its messages chained. */
function decodeDelta(parts: readonly string[], header: DeltaHeader): DeltaContent {
  const { messageIds, messages, turns } = decodeSegmentParts(header.segments, parts);
  if (chainDigests(header.base.headDigest, messageIds) !== header.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: "the delta's message blobs do not chain from its base to its head digest",
    });
  }
  return { header, messages, turns };
}

export interface DecodeCheckpointChainOptions {
  /** Oldest first: a full token (version 1 or 2) or a delta from an empty base, then deltas. */
  readonly tokens: readonly string[];
  readonly secret: string | Uint8Array;
  readonly audience?: string | undefined;
  /** Cap on the tokens' total length and on their decompressed content (default 64 MiB). */
  readonly maxBytes?: number | undefined;
  readonly conversationId?: string | undefined;
}

/**
 * Decodes a chain of checkpoints into one state: the first complete on its own, each following
 * delta based exactly on the head the ones before it reached (same conversation and epoch,
 * message and turn counts, head digest). Everything `decodeCheckpoint` verifies is verified for
 * every token; a chain that does not link fails as `manifest-mismatch`, a first token that is a
 * delta from a non-empty base as `incomplete`.
 */
export function decodeCheckpointChain(options: DecodeCheckpointChainOptions): CheckpointState {
  const { tokens } = options;
  const maxBytes = options.maxBytes ?? defaultMaxCheckpointBytes;
  if (tokens.length === 0) {
    throw new CheckpointError({ reason: "malformed", message: "a checkpoint chain is not empty" });
  }
  const total = tokens.reduce(
    (sum, token) => sum + (typeof token === "string" ? token.length : 0),
    0,
  );
  if (total > maxBytes) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the checkpoint chain is ${total} bytes; the limit is ${maxBytes}`,
    });
  }
  let state: CheckpointState | undefined;
  let messages: CanonicalMessage[] = [];
  let turns: CheckpointTurn[] = [];
  tokens.forEach((token, index) => {
    const opened = openToken({ ...options, token, maxBytes });
    if (opened.version !== checkpointDeltaTokenVersion) {
      if (index !== 0) {
        throw new CheckpointError({
          reason: "manifest-mismatch",
          message: `checkpoint ${index} of the chain is a full checkpoint; only the first may be`,
        });
      }
      state = decodeCheckpoint({ ...options, token, maxBytes });
      messages = [...state.messages];
      turns = [...state.turns];
      return;
    }
    const header = verifiedDeltaHeader({ ...opened });
    checkConversation(header.conversationId, options.conversationId);
    const { base } = header;
    if (state === undefined) {
      if (base.messageCount !== 0 || base.turnCount !== 0) {
        throw new CheckpointError({
          reason: "incomplete",
          message: `the chain starts with a delta after ${base.messageCount} messages and ${base.turnCount} turns; it needs the checkpoints before it`,
        });
      }
      if (base.headDigest !== emptyHeadDigest(header.epoch)) {
        throw new CheckpointError({
          reason: "head-mismatch",
          message:
            "a delta from the start of an epoch has that epoch's empty head digest as its base",
        });
      }
    } else if (
      header.conversationId !== state.conversationId ||
      header.epoch !== state.epoch ||
      base.messageCount !== messages.length ||
      base.turnCount !== turns.length ||
      base.headDigest !== state.headDigest
    ) {
      throw new CheckpointError({
        reason: "manifest-mismatch",
        message: `checkpoint ${index} of the chain does not continue the one before it (epoch ${header.epoch}, base ${base.messageCount} messages / ${base.turnCount} turns; the chain has epoch ${state.epoch}, ${messages.length} / ${turns.length})`,
      });
    }
    const delta = decodeDelta(deltaTokenParts(token).segments(), header);
    messages.push(...delta.messages);
    turns.push(...delta.turns);
    state = {
      formatVersion: checkpointFormatVersion,
      conversationId: header.conversationId,
      epoch: header.epoch,
      messages,
      turns,
      ...optionalMetadata(header),
      headDigest: header.headDigest,
    };
  });
  if (state === undefined) throw new Error("unreachable: a non-empty chain decodes to a state");
  return { ...state, messages: [...messages], turns: [...turns] };
}

/**
 * A delta's MAC, header and segment digests, without inflating anything: what a gateway that
 * already holds the conversation checks before it ignores the token (a tampered or truncated
 * one is refused all the same).
 */
export function inspectCheckpointDelta(options: {
  token: string;
  secret: string | Uint8Array;
  audience?: string | undefined;
  maxBytes?: number | undefined;
  conversationId?: string | undefined;
}): CheckpointDeltaSummary {
  const opened = openToken(options);
  if (opened.version !== checkpointDeltaTokenVersion) {
    throw new CheckpointError({
      reason: "malformed",
      message: `not a delta checkpoint (format version ${opened.version})`,
    });
  }
  const header = verifiedDeltaHeader(opened);
  checkConversation(header.conversationId, options.conversationId);
  // Digests only: cheap for a delta, and a segment altered after signing is caught here.
  decodeSegmentDigests(header, deltaTokenParts(opened.token).segments());
  return {
    tokenVersion: checkpointDeltaTokenVersion,
    conversationId: header.conversationId,
    epoch: header.epoch,
    headDigest: header.headDigest,
    messageCount: header.messageCount,
    turnCount: header.turnCount,
    ...optionalMetadata(header),
    base: header.base,
  };
}

function decodeSegmentDigests(header: DeltaHeader, parts: readonly string[]): void {
  // decodeSegmentParts checks lengths and digests before inflating; a delta is small, so the
  // whole check is the simplest correct one.
  decodeSegmentParts(header.segments, parts);
}
