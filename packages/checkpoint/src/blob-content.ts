import { canonicalJson, canonicalMessageSchema } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import type { z } from "zod";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointTurnSchema, describeIssues } from "./checkpoint-state.js";
import type { CheckpointTurn } from "./checkpoint-state.js";
import { parseJsonBytes } from "./stored-objects.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseBlob<T>({
  bytes,
  id,
  what,
  schema,
}: {
  bytes: Uint8Array;
  id: string;
  what: string;
  schema: z.ZodType<T>;
}): T {
  const parsed = schema.safeParse(parseJsonBytes(bytes, `${what} blob ${id}`, id));
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "malformed",
      message: `${what} blob ${id} is invalid: ${describeIssues(parsed.error)}`,
      objectId: id,
      cause: parsed.error,
    });
  }
  // Only the canonical form is accepted: the blob id is the hash of these exact bytes and must
  // also be the value's `messageDigest`, which is what the head digest chains.
  if (canonicalJson(parsed.data) !== utf8.decode(bytes)) {
    throw new CheckpointError({
      reason: "malformed",
      message: `${what} blob ${id} is not in canonical JSON form`,
      objectId: id,
    });
  }
  return parsed.data;
}

/** Parses a message blob whose hash was already checked against `id`. */
export function parseMessageBlob(bytes: Uint8Array, id: string): CanonicalMessage {
  return parseBlob({ bytes, id, what: "message", schema: canonicalMessageSchema });
}

/** Parses a turn blob whose hash was already checked against `id`. */
export function parseTurnBlob(bytes: Uint8Array, id: string): CheckpointTurn {
  return parseBlob({ bytes, id, what: "turn", schema: checkpointTurnSchema });
}
