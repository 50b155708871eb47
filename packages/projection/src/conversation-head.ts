import { HistoryLog } from "@cursor/run";
import { z } from "zod";
import { TurnIndex } from "./turn-index.js";

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
    turns: Object.freeze(parsedTurns.map((turn) => Object.freeze(sharingIds(turn, history)))),
    ...(lastRunId === undefined ? {} : { lastRunId: idSchema.parse(lastRunId) }),
  });
}

/**
 * The turn record with the id strings its history's messages hold (a store or a checkpoint
 * decodes turns and messages apart, so equal ids arrive as separate copies): the ids of a long
 * conversation are kept once, not twice.
 */
function sharingIds(turn: TurnRecord, history: HistoryLog): TurnRecord {
  const event = history.findByEventId(turn.eventId);
  return {
    clientMessageId: turn.clientMessageId,
    eventId: event !== undefined && "eventId" in event ? event.eventId : turn.eventId,
    runId: turn.runId,
    messageIds: turn.messageIds.map((id) => history.get(id)?.id ?? id),
  };
}

const turnIndexes = new WeakMap<readonly TurnRecord[], TurnIndex>();

function turnIndex(turns: readonly TurnRecord[]): TurnIndex {
  let index = turnIndexes.get(turns);
  if (index === undefined) {
    index = new TurnIndex(turns);
    turnIndexes.set(turns, index);
  }
  return index;
}

/** `turns` followed by `added`, as a new frozen array sharing `turns`' look-up index. */
export function appendTurns(
  turns: readonly TurnRecord[],
  added: readonly TurnRecord[],
): readonly TurnRecord[] {
  if (added.length === 0) return turns;
  const next = Object.freeze([...turns, ...added.map((turn) => Object.freeze({ ...turn }))]);
  const index = turnIndex(turns);
  // Only the tip of a chain extends its index; a second branch from an older array builds its
  // own index lazily, so branches never see each other's entries.
  if (index.length === turns.length) {
    index.extend(next);
    turnIndexes.set(next, index);
  }
  return next;
}

/** The accepted event with this event id, if any (in any epoch). */
export function findTurn(head: ConversationHead, eventId: string): TurnRecord | undefined {
  const position = turnIndex(head.turns).eventPosition(eventId);
  const turn = position === undefined ? undefined : head.turns[position];
  return turn?.eventId === eventId ? turn : undefined;
}

/** The first accepted event a request with this run id delivered, if any (in any epoch). */
export function findTurnOfRun(head: ConversationHead, runId: string): TurnRecord | undefined {
  return turnsOfRun(head, runId)[0];
}

/** Every accepted event a request with this run id delivered, oldest first (from the index). */
export function turnsOfRun(
  head: Pick<ConversationHead, "turns">,
  runId: string,
): readonly TurnRecord[] {
  const turns: TurnRecord[] = [];
  for (const position of turnIndex(head.turns).runPositions(runId)) {
    const turn = head.turns[position];
    // Positions past this array's end (a longer array of the chain) or another branch's.
    if (turn?.runId === runId) turns.push(turn);
  }
  return turns;
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
  const position = turnIndex(head.turns).messagePosition(messageId);
  return (position !== undefined && position < head.turns.length) || head.history.has(messageId);
}
