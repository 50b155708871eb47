import { z } from "zod";
import { checkpointIdSchema, sha256HexSchema } from "./checkpoint-state.js";

// Format version 2 of the portable token:
//
//   cp2 . mac . header . segment . segment ...
//
// `header` is canonical JSON (metadata plus one entry per segment: kind, blob count, compressed
// and decompressed length, SHA-256 of the compressed bytes). `mac` is HMAC-SHA256 over the
// header bytes (see computeMac), so the MAC covers every segment through its digest while
// staying independent of the segments' bytes: a re-encoding after an append MACs a small header
// and reuses every unchanged compressed segment. Message segments come first, then turn
// segments; each holds `tokenSegmentSize` blobs except the last of its kind.

export const tokenSegmentSize = 32;

const countSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const tokenSegmentEntrySchema = z.tuple([
  z.enum(["m", "t"]),
  z.number().int().min(1).max(tokenSegmentSize),
  countSchema,
  countSchema,
  sha256HexSchema,
]);

export const tokenHeaderSchema = z.strictObject({
  conversationId: checkpointIdSchema,
  epoch: countSchema,
  headDigest: sha256HexSchema,
  latestRequestContextId: checkpointIdSchema.optional(),
  promptSpecDigest: sha256HexSchema.optional(),
  messageCount: countSchema,
  turnCount: countSchema,
  segments: z.array(tokenSegmentEntrySchema),
});

export type TokenHeader = z.infer<typeof tokenHeaderSchema>;
