import { canonicalJson, requestContextEventId, sha256Hex, userTurnEventId } from "@cursor/run";
import type { CompiledRequestContext, CompiledRuntime } from "./turn-plan.js";

/**
 * The content digest of a user turn: the compiled request context (or its absence) and the
 * runtime message with its timestamp blanked. A retry of the same message with the same content
 * gets the same digest whatever time it is sent at; any edit gives another.
 */
export function userTurnContentDigest({
  requestContext,
  runtime,
}: {
  requestContext: CompiledRequestContext | undefined;
  runtime: CompiledRuntime;
}): string {
  return sha256Hex(
    canonicalJson({
      requestContext: requestContext?.digest ?? null,
      runtime: runtime.contentDigest,
    }),
  );
}

/** The event identity of a user turn: `turn.<clientMessageId>.<digest16>`. */
export function userTurnIdentity({
  clientMessageId,
  requestContext,
  runtime,
}: {
  clientMessageId: string;
  requestContext: CompiledRequestContext | undefined;
  runtime: CompiledRuntime;
}): string {
  return userTurnEventId({
    clientMessageId,
    contentDigest: userTurnContentDigest({ requestContext, runtime }),
  });
}

/**
 * The event id of the request-context message a user turn appends:
 * `ctx.<clientMessageId>.<contextDigest16>`. That id is already taken when an edited resend of an
 * old message brings back that message's context after the context changed in between; the
 * context must still be appended, so the turn's digest is added to keep the event unique.
 */
export function requestContextIdentity({
  clientMessageId,
  contextDigest,
  turnEventId,
  isTaken,
}: {
  clientMessageId: string;
  contextDigest: string;
  turnEventId: string;
  isTaken: (eventId: string) => boolean;
}): string {
  const plain = requestContextEventId({ clientMessageId, contextDigest });
  if (!isTaken(plain)) return plain;
  const turnDigest = turnEventId.slice(turnEventId.lastIndexOf(".") + 1);
  return requestContextEventId({
    clientMessageId: `${clientMessageId}.${turnDigest}`,
    contextDigest,
  });
}
