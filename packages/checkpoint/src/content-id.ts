import {
  canonicalJson,
  canonicalMessageSchema,
  knownMessageDigest,
  recentCanonicalJson,
  sha256Hex,
} from "@cursor/run";
import type { CanonicalMessage, HistoryLog } from "@cursor/run";
import type { z } from "zod";
import { RecentIds } from "./recent-ids.js";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointTurnSchema, describeIssues } from "./checkpoint-state.js";
import type { CheckpointTurn } from "./checkpoint-state.js";

// Content ids are cached per object, but only for frozen objects (HistoryLog deep-freezes every
// message it stores): a frozen object cannot change after it was hashed, so re-encoding a growing
// conversation validates and hashes each message once instead of on every turn. Messages of a
// state a log made need no memo (`stateMessageIds`). Turn records are encoded again only while
// they are in a conversation's open segment, whose ids the encode cache keeps (`knownIds`): the
// memo here keeps the recent ones only (for encoders without a cache), not one entry per turn of
// every open conversation.
const messageIds = new WeakMap<object, string>();
const turnIds = new RecentIds(256);

/**
 * The canonical JSON bytes of a value: what a blob holds and what its id hashes. A message
 * validated a moment ago (a turn's new one) has its text already (`recentCanonicalJson`).
 */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(recentCanonicalJson(value), "utf8");
}

function contentId<T>({
  value,
  schema,
  cache,
  where,
}: {
  value: unknown;
  schema: z.ZodType<T>;
  cache: { get(value: object): string | undefined; set(value: object, id: string): unknown };
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
function messageContentId(message: unknown, where: string): string {
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
function turnContentId(turn: unknown, where: string): string {
  return contentId<CheckpointTurn>({
    value: turn,
    schema: checkpointTurnSchema,
    cache: turnIds,
    where,
  });
}

// The log a state was made from (`createCheckpointState`): the digests of its messages are
// there, packed, for as long as the log holds them. Keyed by the state, which is short-lived:
// a conversation's messages need no memo entry each.
const stateHistories = new WeakMap<object, HistoryLog>();

/** Records that `state` was made from `history` (its messages are the log's). */
export function rememberStateHistory(state: object, history: HistoryLog): void {
  stateHistories.set(state, history);
}

/**
 * The content id of the message at each index of a state's `messages`: the digest its log
 * holds when the state was made from one and the message is still that log's at that index
 * (the very object, so the very content), else `messageContentId` (validated and hashed once
 * per frozen object).
 */
export function stateMessageIds(
  state: object,
  messages: readonly unknown[],
): (index: number) => string {
  const history = stateHistories.get(state);
  return (index) => {
    const message = messages[index];
    if (history !== undefined && history.messages[index] === message) {
      const digest = history.digestAt(index);
      if (digest !== undefined) return digest;
    }
    return messageContentId(message, `messages[${index}]`);
  };
}

/** The content id of the turn record at each index of a state's `turns` (`turnContentId`). */
export function stateTurnIds(turns: readonly unknown[]): (index: number) => string {
  return (index) => turnContentId(turns[index], `turns[${index}]`);
}
