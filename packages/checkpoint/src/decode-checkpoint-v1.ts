import { canonicalMessageSchema, messageDigest } from "@cursor/run";
import { z } from "zod";
import { CheckpointError } from "./checkpoint-error.js";
import {
  checkpointFormatVersion,
  checkpointIdSchema,
  checkpointTurnSchema,
  describeIssues,
  sha256HexSchema,
} from "./checkpoint-state.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { headDigestOf } from "./head-digest.js";
import { parseJsonBytes } from "./stored-objects.js";
import {
  decodeBase64Url,
  decodeBase64UrlForMac,
  inflateBounded,
  verifyMac,
} from "./token-codec.js";

// Format version 1, the first portable token, kept readable for tokens clients still hold:
//
//   cp1 . payload . mac
//
// `payload` is the raw-deflated canonical JSON of one document holding the metadata, a manifest
// (the blob id of every message, in order) and the messages themselves; `mac` is HMAC-SHA256 over
// the compressed payload (see computeMac). It is never written any more: it compresses and MACs
// the whole history on every turn, which version 2 avoids.

const v1DocumentSchema = z.strictObject({
  conversationId: checkpointIdSchema,
  epoch: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  headDigest: sha256HexSchema,
  latestRequestContextId: checkpointIdSchema.optional(),
  promptSpecDigest: sha256HexSchema.optional(),
  manifest: z.array(sha256HexSchema),
  messages: z.array(z.unknown()),
  turns: z.array(checkpointTurnSchema),
});

export function decodeCheckpointV1({
  parts,
  key,
  audience,
  maxBytes,
}: {
  parts: readonly string[];
  key: Buffer;
  audience: string;
  maxBytes: number;
}): CheckpointState {
  if (parts.length < 3) {
    throw new CheckpointError({ reason: "truncated", message: "the checkpoint has no MAC" });
  }
  if (parts.length > 3) {
    throw new CheckpointError({
      reason: "malformed",
      message: "a version 1 checkpoint has exactly three parts",
    });
  }
  // The MAC covers the whole payload: one lenient decode and one hash of it come first; the strict
  // checks of its text (alphabet, canonical form) only once it is known to be authentic.
  const mac = decodeBase64Url(parts[2] ?? "", "the MAC");
  verifyMac({ key, version: 1, audience, content: decodeBase64UrlForMac(parts[1] ?? ""), mac });
  const payload = decodeBase64Url(parts[1] ?? "", "the payload");
  // Version 1 declares no sizes, so the only bound on inflation is the caller's limit.
  const json = parseJsonBytes(
    inflateBounded({
      bytes: payload,
      maxOutput: maxBytes,
      what: "the payload",
      overflow: "too-large",
    }),
    "the payload",
  );
  const parsed = v1DocumentSchema.safeParse(json);
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `invalid version 1 checkpoint: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  const document = parsed.data;
  if (document.manifest.length !== document.messages.length) {
    throw new CheckpointError({
      reason: "manifest-mismatch",
      message: `the manifest lists ${document.manifest.length} blobs for ${document.messages.length} messages`,
    });
  }
  const messages = document.messages.map((raw, index) => {
    const message = canonicalMessageSchema.safeParse(raw);
    if (!message.success) {
      throw new CheckpointError({
        reason: "malformed",
        message: `messages[${index}] is invalid: ${describeIssues(message.error)}`,
        cause: message.error,
      });
    }
    const id = document.manifest[index];
    if (messageDigest(message.data) !== id) {
      throw new CheckpointError({
        reason: "blob-mismatch",
        message: `messages[${index}] does not hash to its manifest id ${id}`,
        ...(id === undefined ? {} : { objectId: id }),
      });
    }
    return message.data;
  });
  if (headDigestOf(document.epoch, document.manifest) !== document.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: "the manifest does not chain to the recorded head digest",
    });
  }
  return {
    formatVersion: checkpointFormatVersion,
    conversationId: document.conversationId,
    epoch: document.epoch,
    messages,
    turns: document.turns,
    ...(document.latestRequestContextId === undefined
      ? {}
      : { latestRequestContextId: document.latestRequestContextId }),
    ...(document.promptSpecDigest === undefined
      ? {}
      : { promptSpecDigest: document.promptSpecDigest }),
    headDigest: document.headDigest,
  };
}
