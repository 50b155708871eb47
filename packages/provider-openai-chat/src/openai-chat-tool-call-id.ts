import { sha256Hex } from "@cursor/run";

// OpenAI rejects tool call ids longer than 40 characters ("string_above_max_length"), and some
// compatible servers reject anything but word characters. Ids from other providers (e.g.
// Responses `fc_…` ids of 50+ characters) therefore cannot always be sent as they are.
const acceptedToolCallId = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * The tool call id sent on the wire for a canonical call id. Ids the API accepts pass through
 * unchanged (so ids this API produced round-trip exactly); any other id becomes `call_` + 32 hex
 * characters of its SHA-256. A pure function of the id, so every turn maps it the same way and the
 * assistant `tool_calls[].id` always matches the `tool_call_id` of its result.
 */
export function toOpenAIChatToolCallId(callId: string): string {
  if (acceptedToolCallId.test(callId)) return callId;
  return `call_${sha256Hex(callId).slice(0, 32)}`;
}
