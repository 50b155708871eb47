import { canonicalJson, canonicalMessageSchema, knownMessageDigest, sha256Hex } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import type { z } from "zod";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointTurnSchema, describeIssues } from "./checkpoint-state.js";
import type { CheckpointTurn } from "./checkpoint-state.js";

// Content ids are cached per object, but only for frozen objects (HistoryLog deep-freezes every
// message it stores): a frozen object cannot change after it was hashed, so re-encoding a growing
// conversation validates and hashes each message once instead of on every turn.
const messageIds = new WeakMap<object, string>();
const turnIds = new WeakMap<object, string>();

/** The canonical JSON bytes of a value: what a blob holds and what its id hashes. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), "utf8");
}

function contentId<T>({
  value,
  schema,
  cache,
  where,
}: {
  value: unknown;
  schema: z.ZodType<T>;
  cache: WeakMap<object, string>;
  where: string;
}): string {
  const isObject = typeof value === "object" && value !== null;
  if (isObject) {
    const cached = cache.get(value);
    if (cached !== undefined) return cached;
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new CheckpointError({
      reason: "invalid-state",
      message: `${where} is invalid: ${describeIssues(parsed.error)}`,
      cause: parsed.error,
    });
  }
  // Hash what the schema accepted: strict schemas admit no extra keys, so this is the value's
  // own canonical JSON and equals `messageDigest` for messages.
  const id = sha256Hex(canonicalJson(parsed.data));
  if (isObject && Object.isFrozen(value)) cache.set(value, id);
  return id;
}

/** Validates a message (once per frozen object) and returns its blob id (`messageDigest`). */
export function messageContentId(message: unknown, where: string): string {
  // A message a HistoryLog validated: its digest is its blob id, and it needs no memo here.
  const known = knownMessageDigest(message);
  if (known !== undefined) return known;
  return contentId<CanonicalMessage>({
    value: message,
    schema: canonicalMessageSchema,
    cache: messageIds,
    where,
  });
}

/** Validates a turn (once per frozen object) and returns its blob id. */
export function turnContentId(turn: unknown, where: string): string {
  return contentId<CheckpointTurn>({
    value: turn,
    schema: checkpointTurnSchema,
    cache: turnIds,
    where,
  });
}

/**
 * Records a message's known content id (from `HistoryLog.digestAt`, which hashes the same
 * canonical JSON) so encoders never hash it again. Only frozen messages are remembered. Returns
 * whether the message was already known.
 */
export function rememberMessageContentId(message: CanonicalMessage, id: string): boolean {
  if (knownMessageDigest(message) === id || messageIds.has(message)) return true;
  if (Object.isFrozen(message)) messageIds.set(message, id);
  return false;
}
