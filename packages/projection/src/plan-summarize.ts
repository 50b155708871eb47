import { closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
import type { ConversationHead } from "./conversation-head.js";
import { finalizeTurnPlan } from "./turn-plan.js";
import type { TurnPlan } from "./turn-plan.js";

/**
 * Plans a `summarize` request (manual compaction). Abandoned tool calls are closed first so the
 * summarised epoch is well formed; the gateway then summarises with the conversation compactor
 * (`reason: "manual"`), which starts the new epoch. An empty epoch, or one that is only the
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
  const base = {
    action: "summarize",
    runId,
    acceptedRunId: runId,
    newTurns: [],
    retry: false,
  } as const;
  return finalizeTurnPlan({
    head,
    draft: empty
      ? { ...base, next: "done", initialMessages: [] }
      : {
          ...base,
          next: "compact",
          reason: "manual",
          initialMessages: closeAbandonedToolCalls(head.history),
        },
  });
}
