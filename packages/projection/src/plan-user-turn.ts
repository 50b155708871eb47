import {
  createRequestContextMessage,
  createRuntimeMessage,
  requestContextMessageId,
} from "@cursor/run";
import type { CanonicalMessage, ContentPart, RequestContextMessage } from "@cursor/run";
import { closeAbandonedToolCalls } from "./abandoned-tool-calls.js";
import { findTurn, findTurnOfRun, isRecordedMessageId } from "./conversation-head.js";
import type { ConversationHead, TurnRecord } from "./conversation-head.js";
import { RunIdReusedError } from "./projection-errors.js";
import { runProgress } from "./run-progress.js";
import { draftForProgress, finalizeTurnPlan } from "./turn-plan.js";
import type { CompiledRequestContext, CompiledRuntime, TurnPlan } from "./turn-plan.js";
import { requestContextIdentity, userTurnIdentity } from "./user-turn-identity.js";

/** A user turn with its request context and runtime message already compiled. */
export interface CompiledUserTurn {
  /** The client's message id (`message.id`). */
  readonly clientMessageId: string;
  /** Undefined when the request carried no request context (the latest one stays current). */
  readonly requestContext?: CompiledRequestContext | undefined;
  readonly runtime: CompiledRuntime;
}

/**
 * Plans a user turn. A new event appends [closing results for abandoned tool calls] + [request
 * context, only when its digest differs from the head's latest] + [runtime message]. A retry of
 * an accepted event (same message id, same content) appends nothing and reuses the stored
 * messages verbatim, original timestamp included.
 */
export function planUserTurn({
  head,
  runId,
  userTurn,
}: {
  head: ConversationHead;
  runId: string;
  userTurn: CompiledUserTurn;
}): TurnPlan {
  const eventId = userTurnIdentity({
    clientMessageId: userTurn.clientMessageId,
    requestContext: userTurn.requestContext,
    runtime: userTurn.runtime,
  });
  const stored = storedTurn({ head, eventId, clientMessageId: userTurn.clientMessageId, runId });
  if (stored !== undefined) return planRetry({ head, runId, turn: stored });
  const delivered = findTurnOfRun(head, runId);
  if (delivered !== undefined) {
    throw new RunIdReusedError({
      message: `run ${runId} already delivered message ${delivered.clientMessageId}${
        delivered.clientMessageId === userTurn.clientMessageId ? " with other content" : ""
      }: a retry resends the same message with the same run id; a new or edited message needs a new run id`,
      conversationId: head.conversationId,
      runId,
      deliveredClientMessageId: delivered.clientMessageId,
    });
  }

  const closers = closeAbandonedToolCalls(head.history);
  const contextMessage = requestContextToAppend({ head, userTurn, turnEventId: eventId });
  const runtimeMessage = createRuntimeMessage({
    eventId,
    runtimeKind: "user-turn",
    content: copyContent(userTurn.runtime.content),
  });
  const eventMessages: CanonicalMessage[] = [
    ...(contextMessage === undefined ? [] : [contextMessage]),
    runtimeMessage,
  ];
  const turn: TurnRecord = {
    clientMessageId: userTurn.clientMessageId,
    eventId,
    runId,
    messageIds: eventMessages.map((message) => message.id),
  };
  return finalizeTurnPlan({
    head,
    draft: {
      next: "call-model",
      action: "user-message",
      runId,
      acceptedRunId: runId,
      initialMessages: [...closers, ...eventMessages],
      currentInitialMessages: eventMessages,
      turn,
      newTurns: [turn],
      retry: false,
    },
  });
}

/**
 * Request-context dedup: compare with the latest `request-context:*` message of the head by
 * digest. Equal → nothing; different (or none in this epoch) → a new context event.
 */
function requestContextToAppend({
  head,
  userTurn,
  turnEventId,
}: {
  head: ConversationHead;
  userTurn: CompiledUserTurn;
  turnEventId: string;
}): RequestContextMessage | undefined {
  const compiled = userTurn.requestContext;
  if (compiled === undefined) return undefined;
  if (head.history.latestRequestContext()?.digest === compiled.digest) return undefined;
  const eventId = requestContextIdentity({
    clientMessageId: userTurn.clientMessageId,
    contextDigest: compiled.digest,
    turnEventId,
    isTaken: (candidate) =>
      head.history.findByEventId(candidate) !== undefined ||
      isRecordedMessageId(head, requestContextMessageId(candidate)),
  });
  return createRequestContextMessage({ eventId, digest: compiled.digest, text: compiled.text });
}

/**
 * The accepted turn with this event id. A head rebuilt from messages alone (no turn records)
 * still recognises the event by its runtime message.
 */
function storedTurn({
  head,
  eventId,
  clientMessageId,
  runId,
}: {
  head: ConversationHead;
  eventId: string;
  clientMessageId: string;
  runId: string;
}): TurnRecord | undefined {
  const recorded = findTurn(head, eventId);
  if (recorded !== undefined) return recorded;
  const runtimeMessage = head.history.findByEventId(eventId);
  if (runtimeMessage === undefined) return undefined;
  return { clientMessageId, eventId, runId, messageIds: [runtimeMessage.id] };
}

/**
 * A retry: the stored messages, verbatim, are the initial messages (appending them is a no-op).
 * What happens next depends on how far the original run got.
 */
function planRetry({
  head,
  runId,
  turn,
}: {
  head: ConversationHead;
  runId: string;
  turn: TurnRecord;
}): TurnPlan {
  const storedMessages = turn.messageIds
    .map((id) => head.history.get(id))
    .filter((message): message is CanonicalMessage => message !== undefined);
  // Messages summarised away by a compaction belong to a run that finished long ago.
  const inEpoch = storedMessages.length === turn.messageIds.length;
  const progress = inEpoch ? runProgress({ head, runId: turn.runId }) : "completed";
  const base = {
    action: "user-message",
    runId: turn.runId,
    acceptedRunId: runId,
    initialMessages: inEpoch ? storedMessages : [],
    turn,
    newTurns: [],
    retry: true,
  } as const;
  return finalizeTurnPlan({
    head,
    draft: draftForProgress({
      base,
      progress,
      currentInitialMessages: base.initialMessages,
      pendingToolCalls: () => head.history.pendingToolCalls(),
    }),
  });
}

// Stored messages are frozen; a fresh copy keeps the caller's compiled parts out of the history.
function copyContent(content: readonly ContentPart[]): ContentPart[] {
  return content.map((part) => ({ ...part }));
}
