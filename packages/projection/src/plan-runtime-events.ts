import { backgroundCompletionEventId, createRuntimeMessage, injectionEventId } from "@cursor/run";
import type { CanonicalMessage, RuntimeKind, RuntimeMessage } from "@cursor/run";
import { closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
import { findTurn, isDelivered } from "./conversation-head.js";
import type { ConversationHead, TurnRecord } from "./conversation-head.js";
import { RunIdMismatchError } from "./projection-errors.js";
import { runProgress } from "./run-progress.js";
import { draftForProgress, finalizeTurnPlan } from "./turn-plan.js";
import type { CompiledRuntime, TurnAction, TurnPlan } from "./turn-plan.js";

/** One background task completion, its runtime message compiled. */
export interface CompiledBackgroundCompletion {
  readonly kind: string;
  readonly taskId: string;
  readonly toolCallId?: string | undefined;
  readonly runtime: CompiledRuntime;
}

/**
 * Plans a `background-completion` request: one runtime message per completion not delivered
 * before (event id `bg.<kind>.<taskId>.<toolCallId or ->`). Never a request-context message.
 * When every completion was delivered already, nothing is appended and the model is not called.
 */
export function planBackgroundCompletions({
  head,
  runId,
  completions,
}: {
  head: ConversationHead;
  runId: string;
  completions: readonly CompiledBackgroundCompletion[];
}): TurnPlan {
  const events = completions.map((completion) => ({
    clientEventId: completion.taskId,
    eventId: backgroundCompletionEventId({
      kind: completion.kind,
      taskId: completion.taskId,
      toolCallId: completion.toolCallId,
    }),
    runtime: completion.runtime,
  }));
  return planRuntimeEvents({
    head,
    runId,
    action: "background-completion",
    runtimeKind: "background-completion",
    events,
  });
}

/** One injection, its runtime message compiled. */
export interface CompiledInjection {
  readonly injectionId: string;
  /** When given, must be the head's `lastRunId` (checked for new injections only). */
  readonly expectedRunId?: string | undefined;
  readonly runtime: CompiledRuntime;
}

/**
 * Plans an `inject-context` request: one runtime message per injection id (event id
 * `inject.<injectionId>`); a repeated injection id is ignored. Never a request-context message.
 */
export function planInjectedContext({
  head,
  runId,
  injection,
}: {
  head: ConversationHead;
  runId: string;
  injection: CompiledInjection;
}): TurnPlan {
  const eventId = injectionEventId(injection.injectionId);
  // A delivered injection is a duplicate whatever the run ids say now: its own retry would
  // otherwise fail the check, because accepting it moved `lastRunId` to its run.
  if (
    !isDelivered(head, eventId) &&
    injection.expectedRunId !== undefined &&
    injection.expectedRunId !== head.lastRunId
  ) {
    throw new RunIdMismatchError({
      message: `expectedRunId ${injection.expectedRunId} is not the conversation's latest run (${
        head.lastRunId ?? "none"
      })`,
      conversationId: head.conversationId,
      expectedRunId: injection.expectedRunId,
      lastRunId: head.lastRunId,
    });
  }
  return planRuntimeEvents({
    head,
    runId,
    action: "inject-context",
    runtimeKind: "injected-context",
    events: [{ clientEventId: injection.injectionId, eventId, runtime: injection.runtime }],
  });
}

interface RuntimeEvent {
  readonly clientEventId: string;
  readonly eventId: string;
  readonly runtime: CompiledRuntime;
}

function planRuntimeEvents({
  head,
  runId,
  action,
  runtimeKind,
  events,
}: {
  head: ConversationHead;
  runId: string;
  action: TurnAction;
  runtimeKind: RuntimeKind;
  events: readonly RuntimeEvent[];
}): TurnPlan {
  const seen = new Set<string>();
  const runtimeMessages: RuntimeMessage[] = [];
  const newTurns: TurnRecord[] = [];
  for (const event of events) {
    // Duplicates within one request count as delivered too: one message per event id.
    if (seen.has(event.eventId) || isDelivered(head, event.eventId)) continue;
    seen.add(event.eventId);
    const message = createRuntimeMessage({
      eventId: event.eventId,
      runtimeKind,
      content: event.runtime.content.map((part) => ({ ...part })),
    });
    runtimeMessages.push(message);
    newTurns.push({
      clientMessageId: event.clientEventId,
      eventId: event.eventId,
      runId,
      messageIds: [message.id],
    });
  }
  if (runtimeMessages.length > 0) {
    const initialMessages: CanonicalMessage[] = [
      ...closeAbandonedToolCalls(head.history),
      ...runtimeMessages,
    ];
    return finalizeTurnPlan({
      head,
      draft: {
        next: "call-model",
        action,
        runId,
        acceptedRunId: runId,
        initialMessages,
        currentInitialMessages: runtimeMessages,
        ...(newTurns.length === 1 ? { turn: newTurns[0]! } : {}),
        newTurns,
        retry: false,
      },
    });
  }
  // Everything was delivered before. Only the retry of the very request that delivered the
  // events, whose model call never finished, still needs the model; anything else is done.
  const storedTurns = events.flatMap((event) => {
    const stored = findTurn(head, event.eventId);
    return stored === undefined ? [] : [stored];
  });
  const deliveredByThisRun = storedTurns.some((turn) => turn.runId === runId);
  const progress = deliveredByThisRun ? runProgress({ head, runId }) : "completed";
  return finalizeTurnPlan({
    head,
    draft: draftForProgress({
      base: {
        action,
        runId,
        acceptedRunId: runId,
        initialMessages: [],
        ...(events.length === 1 && storedTurns.length === 1 ? { turn: storedTurns[0]! } : {}),
        newTurns,
        retry: true,
      },
      progress,
      currentInitialMessages: [],
      pendingToolCalls: () => head.history.pendingToolCalls(),
    }),
  });
}
