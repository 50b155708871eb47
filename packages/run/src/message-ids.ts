import { canonicalJson, sha256Hex } from "./canonical-json.js";

/**
 * The id catalog. Every layer builds message and event ids through these functions, so the same
 * event always gets the same id (retries are idempotent) and ids never collide across kinds.
 *
 * | message                | message id                       | event id                                 |
 * | ---------------------- | -------------------------------- | ---------------------------------------- |
 * | request context        | `request-context:<eventId>`      | `ctx.<clientMessageId>.<digest16>`       |
 * | runtime, user turn     | `runtime:<eventId>`              | `turn.<clientMessageId>.<digest16>`      |
 * | runtime, background    | `runtime:<eventId>`              | `bg.<kind>.<taskId>.<toolCallId or ->`   |
 * | runtime, injection     | `runtime:<eventId>`              | `inject.<injectionId>`                   |
 * | summary                | `summary:<epoch summarised>`     | —                                        |
 * | assistant              | `assistant:<runId>:<step>`       | —                                        |
 * | tool result            | `tool-result:<callId>`           | —                                        |
 * | tool round             | `round:<assistant message id>`   | (a grouping, not a message)              |
 */
export const messageIdPrefixes = {
  requestContext: "request-context:",
  runtime: "runtime:",
  summary: "summary:",
  assistant: "assistant:",
  toolResult: "tool-result:",
  round: "round:",
  user: "user:",
} as const;

/** A short, stable digest of any JSON value (first 16 hex chars of SHA-256 of canonical JSON). */
export function shortDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value)).slice(0, 16);
}

export function requestContextEventId({
  clientMessageId,
  contextDigest,
}: {
  clientMessageId: string;
  contextDigest: string;
}): string {
  return `ctx.${clientMessageId}.${contextDigest.slice(0, 16)}`;
}

export function userTurnEventId({
  clientMessageId,
  contentDigest,
}: {
  clientMessageId: string;
  contentDigest: string;
}): string {
  return `turn.${clientMessageId}.${contentDigest.slice(0, 16)}`;
}

export function backgroundCompletionEventId({
  kind,
  taskId,
  toolCallId,
}: {
  kind: string;
  taskId: string;
  toolCallId?: string | undefined;
}): string {
  return `bg.${kind}.${taskId}.${toolCallId ?? "-"}`;
}

export function injectionEventId(injectionId: string): string {
  return `inject.${injectionId}`;
}

export function requestContextMessageId(eventId: string): string {
  return `${messageIdPrefixes.requestContext}${eventId}`;
}

export function runtimeMessageId(eventId: string): string {
  return `${messageIdPrefixes.runtime}${eventId}`;
}

export function userMessageId(clientMessageId: string): string {
  return `${messageIdPrefixes.user}${clientMessageId}`;
}

export function summaryMessageId(summarizedEpoch: number): string {
  return `${messageIdPrefixes.summary}${summarizedEpoch}`;
}

export function assistantMessageId({ runId, step }: { runId: string; step: number }): string {
  return `${messageIdPrefixes.assistant}${runId}:${step}`;
}

export function toolResultMessageId(callId: string): string {
  return `${messageIdPrefixes.toolResult}${callId}`;
}

export function toolRoundId(assistantId: string): string {
  return `${messageIdPrefixes.round}${assistantId}`;
}
