import { createToolResultMessage, toolResultMessageId } from "@cursor/run";
import type { CanonicalMessage, ToolResultMessage } from "@cursor/run";
import { turnsOfRun } from "./conversation-head.js";
import type { ConversationHead, TurnRecord } from "./conversation-head.js";
import { ToolResultConflictError } from "./projection-errors.js";
import { isAssistantIdOfRun, runProgress } from "./run-progress.js";
import { draftForProgress, finalizeTurnPlan } from "./turn-plan.js";
import type { TurnPlan } from "./turn-plan.js";

/** One result the client ran for a tool call. */
export interface SubmittedToolResult {
  readonly callId: string;
  readonly output: string;
  readonly isError?: boolean | undefined;
}

/**
 * Plans a `tool-results` request: one result message per pending call of `runId` it answers, in
 * call order (not the client's order, so the history does not depend on it). Re-sending an
 * identical result is a no-op; a result for a call the run is not waiting for, or a changed
 * re-send, is a `ToolResultConflictError`. The model runs once every pending call has a result.
 */
export function planToolResults({
  head,
  runId,
  results,
}: {
  head: ConversationHead;
  runId: string;
  results: readonly SubmittedToolResult[];
}): TurnPlan {
  const pending = head.history
    .pendingToolCalls()
    .filter((call) => isAssistantIdOfRun(call.assistantId, runId));
  const pendingById = new Map(pending.map((call) => [call.callId, call]));
  const fresh = new Map<string, ToolResultMessage>();
  const unknownCallIds: string[] = [];
  const changedCallIds: string[] = [];
  for (const result of results) {
    const call = pendingById.get(result.callId);
    if (call !== undefined) {
      const message = resultMessage(call, result);
      const earlier = fresh.get(result.callId);
      if (earlier !== undefined && !sameResult(earlier, message))
        changedCallIds.push(result.callId);
      fresh.set(result.callId, message);
      continue;
    }
    const stored = head.history.get(toolResultMessageId(result.callId));
    if (stored?.kind !== "tool-result") {
      unknownCallIds.push(result.callId);
    } else if (!sameResult(stored, resultMessage(stored, result))) {
      changedCallIds.push(result.callId);
    }
  }
  if (unknownCallIds.length > 0 || changedCallIds.length > 0) {
    throw new ToolResultConflictError({
      message: conflictMessage({ runId, unknownCallIds, changedCallIds }),
      conversationId: head.conversationId,
      runId,
      unknownCallIds,
      changedCallIds,
    });
  }
  const appended = pending.flatMap((call) => {
    const message = fresh.get(call.callId);
    return message === undefined ? [] : [message];
  });
  const stillPending = pending.filter((call) => !fresh.has(call.callId));
  const runTurns = turnsOfRun(head, runId);
  const base = {
    action: "tool-results",
    runId,
    acceptedRunId: runId,
    initialMessages: appended,
    ...(runTurns.length === 1 ? { turn: runTurns[0]! } : {}),
    newTurns: [],
    retry: appended.length === 0,
  } as const;
  const currentInitialMessages = runEventMessages(head, runTurns);
  if (appended.length > 0) {
    // New results: the model answers once the round is complete.
    return finalizeTurnPlan({
      head,
      draft:
        stillPending.length === 0
          ? { ...base, next: "call-model", currentInitialMessages }
          : { ...base, next: "await-tools", pendingToolCalls: stillPending },
    });
  }
  // Nothing new: a re-send. The run's own state says whether the model still has to answer.
  return finalizeTurnPlan({
    head,
    draft: draftForProgress({
      base,
      progress: runProgress({ head, runId }),
      currentInitialMessages,
      pendingToolCalls: () => stillPending,
    }),
  });
}

function resultMessage(
  call: { readonly callId: string; readonly name: string },
  result: SubmittedToolResult,
): ToolResultMessage {
  return createToolResultMessage({
    callId: call.callId,
    name: call.name,
    content: result.output,
    isError: result.isError ?? false,
  });
}

function sameResult(a: ToolResultMessage, b: ToolResultMessage): boolean {
  return a.content === b.content && a.isError === b.isError;
}

/** The run's event messages still in the epoch: what a compaction during this run keeps. */
function runEventMessages(
  head: ConversationHead,
  runTurns: readonly TurnRecord[],
): CanonicalMessage[] {
  return runTurns.flatMap((turn) => {
    const messages = turn.messageIds.map((id) => head.history.get(id));
    return messages.every((message) => message !== undefined)
      ? (messages as CanonicalMessage[])
      : [];
  });
}

function conflictMessage({
  runId,
  unknownCallIds,
  changedCallIds,
}: {
  runId: string;
  unknownCallIds: readonly string[];
  changedCallIds: readonly string[];
}): string {
  const parts: string[] = [];
  if (unknownCallIds.length > 0) {
    parts.push(`run ${runId} is not waiting for tool calls ${unknownCallIds.join(", ")}`);
  }
  if (changedCallIds.length > 0) {
    parts.push(`tool calls ${changedCallIds.join(", ")} already have a different result`);
  }
  return parts.join("; ");
}
