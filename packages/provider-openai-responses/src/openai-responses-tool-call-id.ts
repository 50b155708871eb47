import { sha256Hex } from "@cursor/run";

/** The Responses API rejects `call_id`s longer than 64 characters with a 400. */
export const maxOpenAIResponsesToolCallIdLength = 64;

/**
 * Maps a canonical tool call id to one the Responses API accepts. Canonical ids are 1..256
 * printable ASCII characters; ids of up to 64 characters pass unchanged (every id this API
 * produced does), longer ones (from another provider) become `call_` + 48 hex digits of their
 * SHA-256. A pure function of the id, so a call and its result map alike on every turn.
 */
export function toOpenAIResponsesToolCallId(callId: string): string {
  if (callId.length <= maxOpenAIResponsesToolCallIdLength) return callId;
  return `call_${sha256Hex(callId).slice(0, 48)}`;
}
