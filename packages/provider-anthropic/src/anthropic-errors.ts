import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from "@anthropic-ai/sdk";
import { toProviderError } from "@cursor/run";
import type {
  ProviderErrorRules,
  ProviderFailureDetails,
  UnwrappedProviderError,
} from "@cursor/run";
import { anthropicProviderId } from "./anthropic-replay-state.js";

/**
 * How the API words a prompt that does not fit the context window (400
 * `invalid_request_error`, e.g. "prompt is too long: 210000 tokens > 200000 maximum").
 */
const contextOverflowPattern =
  /prompt is too long|exceeds? the (model's )?(maximum )?context|context (window|length) (exceeded|limit)|too many (input )?tokens/i;

function detailsOf(error: APIError): ProviderFailureDetails {
  return {
    status: error.status,
    // `error.details.error_code` names the cause where there is one; `error.type` the category.
    code: error.errorCode,
    type: error.type,
    message: error.apiMessage ?? error.message,
    headers: error.headers,
  };
}

/** Reads the official SDK's error classes (checked from the most specific). */
function unwrapAnthropicError(error: unknown): UnwrappedProviderError | undefined {
  if (error instanceof APIUserAbortError) return { kind: "cancelled" };
  if (error instanceof APIConnectionError) return { kind: "transport", message: error.message };
  if (error instanceof APIError) return { kind: "response", details: detailsOf(error) };
  // The SDK's own complaints about what it received (e.g. events out of order).
  if (error instanceof AnthropicError) return { kind: "malformed", message: error.message };
  return undefined;
}

/** What this provider adds to `@cursor/run`'s one classification of provider failures. */
const anthropicErrorRules: ProviderErrorRules = {
  providerId: anthropicProviderId,
  overflowPattern: contextOverflowPattern,
  unwrap: unwrapAnthropicError,
};

/**
 * Any failure of a call — from the SDK, the transport or the stream — as one of the typed
 * `@cursor/run` errors, classified by `@cursor/run`'s `toProviderError` with this provider's
 * overflow wording and SDK error classes (see `classifyProviderFailure` for the table).
 */
export function toAnthropicProviderError(
  error: unknown,
  options: { signal?: AbortSignal | undefined } = {},
): unknown {
  return toProviderError({ error, rules: anthropicErrorRules, signal: options.signal });
}
