import { sha256Hex } from "@cursor/run";

const validToolCallId = /^[a-zA-Z0-9_-]+$/;

/**
 * Maps a canonical tool call id to one the Messages API accepts (`^[a-zA-Z0-9_-]+$`). Valid ids
 * (every id Anthropic itself produces) pass through unchanged, so a round trip is the identity.
 * Others — e.g. ids from another provider containing `.` or `:` — have each invalid character
 * replaced by `_` plus a suffix of the SHA-256 of the original id, so two ids that sanitise to
 * the same text still map apart. Pure: the same id maps the same way on every turn, which keeps
 * tool_use / tool_result pairs matched and the history prefix byte-stable.
 */
export function toAnthropicToolCallId(callId: string): string {
  if (validToolCallId.test(callId)) return callId;
  const sanitized = callId.replace(/[^a-zA-Z0-9_-]/g, "_");
  return `${sanitized}_${sha256Hex(callId).slice(0, 12)}`;
}
