import { HistoryLog } from "@cursor/run";
import { z } from "zod";

const idSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "ids are printable ASCII without spaces");

/**
 * One accepted event of the conversation: a user turn, a background completion or an injection.
 * Records outlive compaction (the messages they name may be summarised away), so retries and
 * already-delivered events are still recognised after an epoch change.
 */
export const turnRecordSchema = z.strictObject({
  /** The client's id for the event: message id, background task id or injection id. */
  clientMessageId: idSchema,
  /** The event identity from the id catalog (`turn.…`, `bg.…`, `inject.…`). */
  eventId: idSchema,
  /** The client run id of the request that delivered the event. */
  runId: idSchema,
  /** The event's own messages (request context, runtime message) in append order. */
  messageIds: z.array(idSchema),
});

export type TurnRecord = z.infer<typeof turnRecordSchema>;

/** What a store row or a hydrated checkpoint gives the projection: one conversation's state. */
export interface ConversationHead {
  readonly conversationId: string;
  /** The current epoch. `prepareTurn` only reads it; `commitTurnPlan` appends to it. */
  readonly history: HistoryLog;
  /** Every accepted event, across epochs, oldest first. */
  readonly turns: readonly TurnRecord[];
  /** The run id of the most recent accepted run request (checked by `inject-context`). */
  readonly lastRunId?: string | undefined;
}

const conversationIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "1..128 chars of [A-Za-z0-9._:-]");

/**
 * Builds a head, validating the turn records (they come from a store or a checkpoint). Without
 * `history` the conversation starts empty at epoch 0.
 */
export function createConversationHead({
  conversationId,
  history = new HistoryLog(),
  turns = [],
  lastRunId,
}: {
  conversationId: string;
  history?: HistoryLog;
  turns?: readonly unknown[];
  lastRunId?: string | undefined;
}): ConversationHead {
  const parsedTurns = z.array(turnRecordSchema).parse(turns);
  return Object.freeze({
    conversationId: conversationIdSchema.parse(conversationId),
    history,
    turns: Object.freeze(parsedTurns.map((turn) => Object.freeze(turn))),
    ...(lastRunId === undefined ? {} : { lastRunId: idSchema.parse(lastRunId) }),
  });
}

// Indexes are built once per `turns` array (heads never change it in place), so repeated look-ups
// on one head cost O(1) each.
interface TurnIndex {
  readonly byEventId: ReadonlyMap<string, TurnRecord>;
  readonly messageIds: ReadonlySet<string>;
}
const turnIndexes = new WeakMap<readonly TurnRecord[], TurnIndex>();

function turnIndex(turns: readonly TurnRecord[]): TurnIndex {
  let index = turnIndexes.get(turns);
  if (index === undefined) {
    index = {
      byEventId: new Map(turns.map((turn) => [turn.eventId, turn])),
      messageIds: new Set(turns.flatMap((turn) => turn.messageIds)),
    };
    turnIndexes.set(turns, index);
  }
  return index;
}

/** The accepted event with this event id, if any (in any epoch). */
export function findTurn(head: ConversationHead, eventId: string): TurnRecord | undefined {
  return turnIndex(head.turns).byEventId.get(eventId);
}

/**
 * Has this event been delivered before? True when a turn record names it or the current epoch
 * holds a message with that event id (a head rebuilt from messages alone still deduplicates).
 */
export function isDelivered(head: ConversationHead, eventId: string): boolean {
  return findTurn(head, eventId) !== undefined || head.history.findByEventId(eventId) !== undefined;
}

/** Was a message with this id ever appended by an accepted event (in any epoch)? */
export function isRecordedMessageId(head: ConversationHead, messageId: string): boolean {
  return turnIndex(head.turns).messageIds.has(messageId) || head.history.has(messageId);
}
