import { closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
import type { ConversationHead } from "./conversation-head.js";
import { finalizeTurnPlan } from "./turn-plan.js";
import type { TurnPlan } from "./turn-plan.js";

/**
 * Plans a `summarize` request (manual compaction). Abandoned tool calls are closed first so the
 * summarised epoch is well formed; the gateway then asks the summariser and starts a new epoch
 * with `compactionReplacement({ reason: "manual" })`. An empty epoch has nothing to summarise.
 */
export function planSummarize({
  head,
  runId,
}: {
  head: ConversationHead;
  runId: string;
}): TurnPlan {
  const empty = head.history.length === 0;
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
