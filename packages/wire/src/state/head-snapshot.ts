import type { ConversationHead, TurnRecord } from "@cursor/projection";
import type { CanonicalMessage, PendingToolCall } from "@cursor/run";

/**
 * A head as it was when its `head` event arrived. The service's `HistoryLog` keeps moving (the
 * loop appends, a compaction replaces the epoch in place) while a checkpoint waits for its KV
 * barrier, so the checkpoint is built from this copy: exactly the head the event announced.
 * Copying is O(messages) references, the same order as listing the root ids.
 */
export interface HeadSnapshot {
  readonly conversationId: string;
  readonly epoch: number;
  readonly headDigest: string;
  readonly messages: readonly CanonicalMessage[];
  /** `digests[i]` is the content address (SHA-256 of the canonical JSON) of `messages[i]`. */
  readonly digests: readonly string[];
  readonly turns: readonly TurnRecord[];
  readonly lastRunId: string | undefined;
  readonly pendingToolCalls: readonly PendingToolCall[];
}

export function snapshotHead(
  head: ConversationHead,
  pendingToolCalls: readonly PendingToolCall[],
): HeadSnapshot {
  const { history } = head;
  // One array, made from the packed table in one pass.
  const digests = history.digestRange();
  return Object.freeze({
    conversationId: head.conversationId,
    epoch: history.epoch,
    headDigest: history.headDigest,
    messages: history.messages.slice(),
    digests,
    turns: head.turns,
    lastRunId: head.lastRunId,
    pendingToolCalls: [...pendingToolCalls],
  });
}

/** The message with this id, looked up from the end (pending rounds and runs sit there). */
export function findFromEnd(snapshot: HeadSnapshot, id: string): CanonicalMessage | undefined {
  for (let index = snapshot.messages.length - 1; index >= 0; index -= 1) {
    if (snapshot.messages[index]!.id === id) return snapshot.messages[index];
  }
  return undefined;
}
