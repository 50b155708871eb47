import { sha256Hex } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { parseMessageBlob, parseTurnBlob } from "./blob-content.js";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointFormatVersion, describeIssues } from "./checkpoint-state.js";
import type { CheckpointState, CheckpointTurn } from "./checkpoint-state.js";
import { decodeCheckpointV1 } from "./decode-checkpoint-v1.js";
import { headDigestOf } from "./head-digest.js";
import { parseJsonBytes } from "./stored-objects.js";
import {
  base64UrlLength,
  decodeBase64Url,
  defaultMaxCheckpointBytes,
  inflateBounded,
  parseVersionPart,
  secretKey,
  tokenPartSeparator,
  tokenParts,
  verifyMac,
} from "./token-codec.js";
import { tokenHeaderSchema, tokenSegmentSize } from "./token-header.js";
import type { TokenHeader } from "./token-header.js";
import { decodeSegmentContent } from "./token-segment.js";

export interface DecodeCheckpointOptions {
  token: string;
  secret: string | Uint8Array;
  /** Must equal the audience the token was encoded for (default: none). */
  audience?: string | undefined;
  /** Cap on the token length and on its decompressed content (default 64 MiB, at most 4 GiB). */
  maxBytes?: number | undefined;
  /** When given, a valid token of another conversation fails as `foreign-conversation`. */
  conversationId?: string | undefined;
}

/** What a token says about itself, once its MAC has been verified. */
export interface CheckpointSummary {
  /** The token's format version (a version 1 token says 1). */
  readonly tokenVersion: number;
  readonly conversationId: string;
  readonly epoch: number;
  readonly headDigest: string;
  readonly messageCount: number;
  readonly turnCount: number;
  readonly latestRequestContextId?: string;
  readonly promptSpecDigest?: string;
}

/**
 * Decodes a token from `encodeCheckpoint` (or a version 1 token). The MAC, every size (before
 * and after decompression), every segment and blob hash, the manifest layout and the head digest
 * are verified before anything is returned; any failure throws one `CheckpointError`.
 */
export function decodeCheckpoint(options: DecodeCheckpointOptions): CheckpointState {
  const { version, token, key, audience, maxBytes } = openToken(options);
  switch (version) {
    case 1: {
      const parts = versionOneParts(token);
      const state = decodeCheckpointV1({ parts, key, audience, maxBytes });
      checkConversation(state.conversationId, options.conversationId);
      return state;
    }
    case 2: {
      const { header, segmentParts } = verifiedHeader({ token, key, audience, maxBytes });
      checkConversation(header.conversationId, options.conversationId);
      return decodeSegments(header, segmentParts());
    }
    default:
      throw unknownVersion(version);
  }
}

/**
 * Verifies a token's MAC and returns what it says about itself without decoding the history: a
 * store whose persisted head already has this head digest need not decode the rest. (Version 1
 * tokens authenticate only as a whole, so they are decoded fully.)
 */
export function inspectCheckpoint(options: DecodeCheckpointOptions): CheckpointSummary {
  const { version, token, key, audience, maxBytes } = openToken(options);
  switch (version) {
    case 1: {
      const state = decodeCheckpointV1({ parts: versionOneParts(token), key, audience, maxBytes });
      checkConversation(state.conversationId, options.conversationId);
      return {
        tokenVersion: 1,
        conversationId: state.conversationId,
        epoch: state.epoch,
        headDigest: state.headDigest,
        messageCount: state.messages.length,
        turnCount: state.turns.length,
        ...optionalMetadata(state),
      };
    }
    case 2: {
      const { header, segmentParts } = verifiedHeader({ token, key, audience, maxBytes });
      checkConversation(header.conversationId, options.conversationId);
      // A truncated token is refused here too, though its segments are not decoded.
      segmentParts();
      return {
        tokenVersion: 2,
        conversationId: header.conversationId,
        epoch: header.epoch,
        headDigest: header.headDigest,
        messageCount: header.messageCount,
        turnCount: header.turnCount,
        ...optionalMetadata(header),
      };
    }
    default:
      throw unknownVersion(version);
  }
}

export function openToken(options: DecodeCheckpointOptions): {
  version: number;
  token: string;
  key: Buffer;
  audience: string;
  maxBytes: number;
} {
  const key = secretKey(options.secret);
  const maxBytes = options.maxBytes ?? defaultMaxCheckpointBytes;
  // zlib's output limit tops out at 4 GiB; a limit is a caller's setting, not token input.
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1 || maxBytes > 2 ** 32) {
    throw new RangeError(`maxBytes must be an integer from 1 to 2^32, got ${maxBytes}`);
  }
  const { token } = options;
  if (typeof token !== "string") {
    throw new CheckpointError({ reason: "malformed", message: "a checkpoint is a string" });
  }
  if (token.length > maxBytes) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the checkpoint is ${token.length} bytes; the limit is ${maxBytes}`,
    });
  }
  const separator = token.indexOf(tokenPartSeparator);
  const version = parseVersionPart(separator === -1 ? token : token.slice(0, separator));
  if (version === undefined) {
    throw new CheckpointError({ reason: "malformed", message: "not a checkpoint token" });
  }
  return { version, token, key, audience: options.audience ?? "", maxBytes };
}

/** A version 1 token's parts: exactly three (version, payload, MAC), found without a split. */
function versionOneParts(token: string): string[] {
  const first = token.indexOf(tokenPartSeparator);
  const last = token.lastIndexOf(tokenPartSeparator);
  // A separator inside the payload makes it fail the strict base64url check, after the MAC.
  return first === -1
    ? [token]
    : first === last
      ? [token.slice(0, first), token.slice(first + 1)]
      : [token.slice(0, first), token.slice(first + 1, last), token.slice(last + 1)];
}

function unknownVersion(version: number): CheckpointError {
  return new CheckpointError({
    reason: "unknown-version",
    message: `checkpoint format version ${version} is not one this build reads (1, ${checkpointFormatVersion})`,
  });
}

export function checkConversation(actual: string, expected: string | undefined): void {
  if (expected !== undefined && actual !== expected) {
    throw new CheckpointError({
      reason: "foreign-conversation",
      message: `the checkpoint belongs to conversation ${actual}, not ${expected}`,
    });
  }
}

export function optionalMetadata(source: {
  latestRequestContextId?: string | undefined;
  promptSpecDigest?: string | undefined;
}): { latestRequestContextId?: string; promptSpecDigest?: string } {
  return {
    ...(source.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: source.latestRequestContextId }),
    ...(source.promptSpecDigest === undefined ? {} : { promptSpecDigest: source.promptSpecDigest }),
  };
}

/**
 * MAC first, then the header's schema, layout and sizes: nothing unauthenticated is parsed, and
 * the work before the MAC is bounded by the header's own (capped) length, never the token's.
 * The segment parts are found afterwards, and only as many as the authentic header declares.
 */
function verifiedHeader({
  token,
  key,
  audience,
  maxBytes,
}: {
  token: string;
  key: Buffer;
  audience: string;
  maxBytes: number;
}): { header: TokenHeader; segmentParts: () => readonly string[] } {
  const versionEnd = token.indexOf(tokenPartSeparator);
  const macEnd = versionEnd === -1 ? -1 : token.indexOf(tokenPartSeparator, versionEnd + 1);
  if (macEnd === -1) {
    throw new CheckpointError({ reason: "truncated", message: "the checkpoint has no header" });
  }
  const headerEnd = token.indexOf(tokenPartSeparator, macEnd + 1);
  const headerText = token.slice(macEnd + 1, headerEnd === -1 ? token.length : headerEnd);
  if (headerText.length > maxHeaderChars) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the checkpoint header is ${headerText.length} characters; the limit is ${maxHeaderChars}`,
    });
  }
  const mac = decodeBase64Url(token.slice(versionEnd + 1, macEnd), "the MAC");
  const headerBytes = decodeBase64Url(headerText, "the header");
  verifyMac({ key, version: 2, audience, content: headerBytes, mac });
  const parsed = tokenHeaderSchema.safeParse(parseJsonBytes(headerBytes, "the header"));
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `invalid checkpoint header: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const header = parsed.data;
  checkSegmentLayout(header);
  const size = header.segments.reduce((sum, [, , , segmentSize]) => sum + segmentSize, 0);
  if (size > maxBytes) {
    throw new CheckpointError({
      reason: "too-large",
      message: `the checkpoint decompresses to ${size} bytes; the limit is ${maxBytes}`,
    });
  }
  const declared = header.segments.length;
  const segmentParts = (): readonly string[] => {
    const parts = headerEnd === -1 ? [] : tokenParts(token.slice(headerEnd + 1), declared);
    if (parts === undefined || parts.length !== declared) {
      const found = parts === undefined ? `more than ${declared}` : String(parts.length);
      throw new CheckpointError({
        reason: parts !== undefined && parts.length < declared ? "truncated" : "malformed",
        message: `the header declares ${declared} segments; the checkpoint has ${found}`,
      });
    }
    return parts;
  };
  return { header, segmentParts };
}

/**
 * No header a real conversation gets is near this: one ~100-character entry per 32 blobs, so 4 MiB
 * describes over a million messages, far past the default 64 MiB token limit.
 */
const maxHeaderChars = 4 * 1024 * 1024;

/** Messages then turns, each in full segments but the last: the only layout encode produces. */
function checkSegmentLayout(header: TokenHeader): void {
  const expected = [
    ...segmentCounts("m", header.messageCount),
    ...segmentCounts("t", header.turnCount),
  ];
  const actual = header.segments.map(([kind, count]) => `${kind}${count}`);
  if (expected.join() !== actual.join()) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `the segments (${actual.join(" ")}) do not hold ${header.messageCount} messages and ${header.turnCount} turns`,
    });
  }
}

export function segmentCounts(kind: string, total: number): string[] {
  const counts: string[] = [];
  for (let start = 0; start < total; start += tokenSegmentSize) {
    counts.push(`${kind}${Math.min(tokenSegmentSize, total - start)}`);
  }
  return counts;
}

function decodeSegments(header: TokenHeader, parts: readonly string[]): CheckpointState {
  const { messageIds, messages, turns } = decodeSegmentParts(header.segments, parts);
  if (headDigestOf(header.epoch, messageIds) !== header.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: "the message blobs do not chain to the head digest the header gives",
    });
  }
  return {
    formatVersion: checkpointFormatVersion,
    conversationId: header.conversationId,
    epoch: header.epoch,
    messages,
    turns,
    ...optionalMetadata(header),
    headDigest: header.headDigest,
  };
}

/**
 * The blobs of a token's segments (`parts[3...]`), each segment checked against its signed
 * header entry (length, digest, inflated size, blob count) and each blob against its id.
 */
export function decodeSegmentParts(
  entries: TokenHeader["segments"],
  parts: readonly string[],
): { messageIds: string[]; messages: CanonicalMessage[]; turns: CheckpointTurn[] } {
  const header = { segments: entries };
  // Every segment is authenticated (length, then digest against the signed header) before any
  // is inflated or parsed: altered input costs hashing, never decompression or JSON parsing.
  const compressedSegments = header.segments.map(([, , compressedLength, , digest], index) => {
    const what = `segment ${index}`;
    const part = parts[index] ?? "";
    const expectedLength = base64UrlLength(compressedLength);
    if (part.length !== expectedLength) {
      throw new CheckpointError({
        reason: part.length < expectedLength ? "truncated" : "malformed",
        message: `${what} is ${part.length} characters; its header entry says ${expectedLength}`,
      });
    }
    const compressed = decodeBase64Url(part, what);
    // The header is authenticated and names each segment's digest: a segment that differs was
    // altered after signing, exactly as if the MAC had failed.
    if (sha256Hex(compressed) !== digest) {
      throw new CheckpointError({
        reason: "bad-mac",
        message: `${what} does not match the digest its signed header gives`,
      });
    }
    return compressed;
  });
  const messageIds: string[] = [];
  const messages: CanonicalMessage[] = [];
  const turns: CheckpointTurn[] = [];
  header.segments.forEach(([kind, count, , size], index) => {
    const what = `segment ${index}`;
    const content = inflateBounded({
      bytes: compressedSegments[index]!,
      maxOutput: size,
      what,
      overflow: "malformed",
    });
    if (content.byteLength !== size) {
      throw new CheckpointError({
        reason: "malformed",
        message: `${what} inflates to ${content.byteLength} bytes; its header entry says ${size}`,
      });
    }
    const blobs = decodeSegmentContent(content, what);
    if (blobs.length !== count) {
      throw new CheckpointError({
        reason: "manifest-mismatch",
        message: `${what} holds ${blobs.length} blobs; its header entry says ${count}`,
      });
    }
    for (const { id, bytes } of blobs) {
      if (kind === "m") {
        messageIds.push(id);
        messages.push(parseMessageBlob(bytes, id));
      } else {
        turns.push(parseTurnBlob(bytes, id));
      }
    }
  });
  return { messageIds, messages, turns };
}
