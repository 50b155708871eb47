import {
  HistoryLog,
  compactionReplacement as replacementOfPartition,
  createSummaryMessage,
  partitionHistory,
} from "@cursor/run";
import type { CanonicalMessage, SummaryMessage } from "@cursor/run";
import { renderSummaryText } from "@cursor/request";
import type { ConversationHead } from "./conversation-head.js";

export type CompactionReason = "auto" | "manual";

/**
 * The history of the epoch after a compaction of `head`, exactly:
 * - `auto`: [latest request context, unless the current turn brings its own] + [summary] +
 *   [current initial messages];
 * - `manual`: [summary] + [current initial messages, if any]: the context is summarised too, so
 *   the next user turn finds no request context and projects it again.
 * `summary` is the summariser's answer; the summary message wraps it with @cursor/request's
 * `renderSummaryText` (summary id `summary:<epoch summarised>`). The result is
 * validated as a new epoch (`InvalidHistoryError` otherwise); start it with
 * `head.history.startEpoch(replacement)`.
 */
export function compactionReplacement({
  head,
  summary,
  currentInitialMessages,
  reason,
}: {
  head: ConversationHead;
  summary: string;
  currentInitialMessages: readonly CanonicalMessage[];
  reason: CompactionReason;
}): CanonicalMessage[] {
  const partition = partitionHistory({
    messages: head.history.messages,
    current: currentInitialMessages,
    keepRequestContext: reason === "auto",
  });
  const summaryMessage: SummaryMessage = createSummaryMessage({
    summarizedEpoch: head.history.epoch,
    text: renderSummaryText(summary),
  });
  const replacement = replacementOfPartition({ partition, summary: summaryMessage });
  // Throws when the replacement is not a valid epoch (e.g. results without their tool call).
  new HistoryLog({ epoch: head.history.epoch + 1, messages: replacement });
  return replacement;
}
