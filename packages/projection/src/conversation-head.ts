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

/**
 * Look-up index of a turns array: positions of event ids and message ids. One index serves a
 * whole chain of arrays that extend each other (`appendTurns`), so recording a turn costs
 * O(turns it adds), not O(all turns); an array only trusts positions below its own length.
 */
interface TurnIndex {
  readonly byEventId: Map<string, number>;
  readonly byMessageId: Map<string, number>;
  /** The positions of each run id's turns, in order. */
  readonly byRunId: Map<string, number[]>;
  /** Length of the longest array of the chain: the only one that may extend the index. */
  length: number;
}
const turnIndexes = new WeakMap<readonly TurnRecord[], TurnIndex>();

function addToIndex(index: TurnIndex, turn: TurnRecord, position: number): void {
  // The first occurrence wins, so positions never move.
  if (!index.byEventId.has(turn.eventId)) index.byEventId.set(turn.eventId, position);
  const ofRun = index.byRunId.get(turn.runId);
  if (ofRun === undefined) index.byRunId.set(turn.runId, [position]);
  else ofRun.push(position);
  for (const id of turn.messageIds) {
    if (!index.byMessageId.has(id)) index.byMessageId.set(id, position);
  }
}

function turnIndex(turns: readonly TurnRecord[]): TurnIndex {
  let index = turnIndexes.get(turns);
  if (index === undefined) {
    index = {
      byEventId: new Map(),
      byMessageId: new Map(),
      byRunId: new Map(),
      length: turns.length,
    };
    turns.forEach((turn, position) => addToIndex(index!, turn, position));
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
    next
      .slice(turns.length)
      .forEach((turn, offset) => addToIndex(index, turn, turns.length + offset));
    index.length = next.length;
    turnIndexes.set(next, index);
  }
  return next;
}

/** The accepted event with this event id, if any (in any epoch). */
export function findTurn(head: ConversationHead, eventId: string): TurnRecord | undefined {
  const position = turnIndex(head.turns).byEventId.get(eventId);
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
  const positions = turnIndex(head.turns).byRunId.get(runId);
  if (positions === undefined) return [];
  const turns: TurnRecord[] = [];
  for (const position of positions) {
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
  const position = turnIndex(head.turns).byMessageId.get(messageId);
  return (position !== undefined && position < head.turns.length) || head.history.has(messageId);
}
