import { HistoryConflictError, HistoryLog, InvalidHistoryError, deepFreeze } from "@cursor/run";
import { CheckpointError } from "./checkpoint-error.js";
import { checkpointTurnSchema, describeIssues, parseStateEnvelope } from "./checkpoint-state.js";
import type { CheckpointState, CheckpointTurn } from "./checkpoint-state.js";

/** A checkpoint brought back to life: the history log plus what the log does not hold. */
export interface HydratedCheckpoint {
  readonly conversationId: string;
  readonly epoch: number;
  /** The current epoch, re-appended message by message; its head digest is the checkpoint's. */
  readonly history: HistoryLog;
  /** Deep-frozen. */
  readonly turns: readonly CheckpointTurn[];
  readonly latestRequestContextId: string | undefined;
  readonly promptSpecDigest: string | undefined;
  readonly headDigest: string;
}

/**
 * Rebuilds the `HistoryLog` of a checkpoint state. The log re-validates every message and tool
 * round and re-derives its own head digest, which must equal the state's: what comes back is
 * exactly the history that was checkpointed, with its message ids, event ids (so request-context
 * dedup and retry idempotence keep working on a fresh process) and pending tool calls.
 */
export function hydrateCheckpoint(state: CheckpointState): HydratedCheckpoint {
  const { metadata, messages, turns } = parseStateEnvelope(state);
  let history: HistoryLog;
  try {
    history = new HistoryLog({ epoch: metadata.epoch, messages });
  } catch (cause) {
    if (InvalidHistoryError.isInstance(cause) || HistoryConflictError.isInstance(cause)) {
      throw new CheckpointError({
        reason: "invalid-history",
        message: `the checkpoint's messages are not a valid history: ${cause.message}`,
        cause,
      });
    }
    throw cause;
  }
  // Re-appending an identical message is a no-op for the log, so a repeated message would
  // silently vanish: the log must hold every message of the state.
  if (history.length !== messages.length) {
    throw new CheckpointError({
      reason: "invalid-history",
      message: `the checkpoint repeats messages: ${messages.length} messages hydrate to ${history.length}`,
    });
  }
  if (history.headDigest !== metadata.headDigest) {
    throw new CheckpointError({
      reason: "head-mismatch",
      message: "the hydrated history's head digest differs from the checkpoint's",
    });
  }
  const parsedTurns = turns.map((turn, index) => {
    const parsed = checkpointTurnSchema.safeParse(turn);
    if (!parsed.success) {
      throw new CheckpointError({
        reason: "invalid-state",
        message: `turns[${index}] is invalid: ${describeIssues(parsed.error)}`,
        cause: parsed.error,
      });
    }
    return parsed.data;
  });
  return {
    conversationId: metadata.conversationId,
    epoch: metadata.epoch,
    history,
    turns: deepFreeze(parsedTurns),
    latestRequestContextId: metadata.latestRequestContextId,
    promptSpecDigest: metadata.promptSpecDigest,
    headDigest: metadata.headDigest,
  };
}
