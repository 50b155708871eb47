import { closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
import type { ConversationHead } from "./conversation-head.js";
import { finalizeTurnPlan } from "./turn-plan.js";
import type { TurnPlan } from "./turn-plan.js";

/**
 * Plans a `summarize` request (manual compaction). Abandoned tool calls are closed first so the
 * summarised epoch is well formed; the gateway then asks the summariser and starts a new epoch
 * with `compactionReplacement({ reason: "manual" })`. An empty epoch, or one that is only the
 * summary of the last compaction, has nothing new to summarise: a repeated `summarize` does not
 * churn epochs.
 */
export function planSummarize({
  head,
  runId,
}: {
  head: ConversationHead;
  runId: string;
}): TurnPlan {
  const { messages } = head.history;
  const empty = messages.length === 0 || (messages.length === 1 && messages[0]!.kind === "summary");
  return finalizeTurnPlan({
    head,
    draft: {
      action: "summarize",
      runId,
      acceptedRunId: runId,
      initialMessages: closeAbandonedToolCalls(head.history),
      currentInitialMessages: [],
      newTurns: [],
      callModel: false,
      alreadyCompleted: empty,
      retry: false,
      pendingToolCalls: [],
      ...(empty ? {} : { compaction: "manual" as const }),
    },
  });
}
