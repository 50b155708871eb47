import type { HistoryLog } from "@cursor/run";
import { checkpointFormatVersion } from "./checkpoint-state.js";
import type { CheckpointState, CheckpointTurn } from "./checkpoint-state.js";
import { rememberStateHistory } from "./content-id.js";

/**
 * Packs a history log and the turn records the caller keeps into a `CheckpointState` (which
 * turns there are is the projection layer's business; this only fills in the version, epoch,
 * messages and head digest from the log, so they cannot disagree). The messages array is a
 * snapshot: later appends to the log do not change the state.
 */
export function createCheckpointState({
  conversationId,
  history,
  turns,
  latestRequestContextId,
  promptSpecDigest,
}: {
  conversationId: string;
  history: HistoryLog;
  turns: readonly CheckpointTurn[];
  latestRequestContextId?: string | undefined;
  promptSpecDigest?: string | undefined;
}): CheckpointState {
  const state: CheckpointState = {
    formatVersion: checkpointFormatVersion,
    conversationId,
    epoch: history.epoch,
    messages: [...history.messages],
    turns: [...turns],
    ...(latestRequestContextId === undefined ? {} : { latestRequestContextId }),
    ...(promptSpecDigest === undefined ? {} : { promptSpecDigest }),
    headDigest: history.headDigest,
  };
  // Encoders read the messages' digests from the log: nothing is hashed again, and no memo
  // entry per message is kept.
  rememberStateHistory(state, history);
  return state;
}
