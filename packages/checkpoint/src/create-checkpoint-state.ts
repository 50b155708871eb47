import type { HistoryLog } from "@cursor/run";
import { checkpointFormatVersion } from "./checkpoint-state.js";
import type { CheckpointState, CheckpointTurn } from "./checkpoint-state.js";
import { rememberMessageContentId } from "./content-id.js";

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
  // Newest first, stopping at the first message already known: a log that grows by appends is
  // then seeded in O(appended) per call, and encoders never re-hash what the log hashed.
  for (let index = history.length - 1; index >= 0; index -= 1) {
    const message = history.messages[index];
    const digest = history.digestAt(index);
    if (message === undefined || digest === undefined) break;
    if (rememberMessageContentId(message, digest)) break;
  }
  return {
    formatVersion: checkpointFormatVersion,
    conversationId,
    epoch: history.epoch,
    messages: [...history.messages],
    turns: [...turns],
    ...(latestRequestContextId === undefined ? {} : { latestRequestContextId }),
    ...(promptSpecDigest === undefined ? {} : { promptSpecDigest }),
    headDigest: history.headDigest,
  };
}
