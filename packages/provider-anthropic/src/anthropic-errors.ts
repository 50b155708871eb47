import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from "@anthropic-ai/sdk";
import {
  AuthenticationError,
  ContextOverflowError,
  CursorError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RunCancelledError,
  parseRetryAfterMs,
} from "@cursor/run";
import { anthropicProviderId } from "./anthropic-replay.js";

const providerId = anthropicProviderId;

/**
 * How the API words a prompt that does not fit the context window (400
 * `invalid_request_error`, e.g. "prompt is too long: 210000 tokens > 200000 maximum").
 */
const contextOverflowPattern =
  /prompt is too long|exceeds? the (model's )?(maximum )?context|context (window|length) (exceeded|limit)|too many (input )?tokens/i;

function messageOf(error: APIError): string {
  return error.apiMessage ?? error.message;
}

/** Classifies by HTTP status; the error `type` decides where the status alone cannot. */
function fromStatus(error: APIError, status: number): Error {
  const message = messageOf(error);
  const base = { message, providerId, status, cause: error };
  if (status === 400 || status === 413) {
    // 413 (request too large) has the same remedy as an overflow: send less history.
    if (status === 413 || contextOverflowPattern.test(message)) {
      return new ContextOverflowError(base);
    }
    return new InvalidRequestError(base);
  }
  if (status === 401 || status === 403) return new AuthenticationError(base);
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs({ headers: error.headers });
    return new RateLimitError({ ...base, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  // 408 / 409 are transient on the server's side, like 5xx and 529 (overloaded).
  if (status >= 500 || status === 408 || status === 409) return new ProviderServerError(base);
  return new InvalidRequestError(base);
}

/**
 * An `error` event inside an already-open stream has no HTTP status; its `type` says what it
 * is (`overloaded_error` is the common one).
 */
function fromErrorType(error: APIError): Error {
  const message = messageOf(error);
  const base = { message, providerId, cause: error };
  switch (error.type) {
    case "invalid_request_error":
      return contextOverflowPattern.test(message)
        ? new ContextOverflowError(base)
        : new InvalidRequestError(base);
    case "authentication_error":
    case "permission_error":
      return new AuthenticationError(base);
    case "rate_limit_error":
      return new RateLimitError(base);
    case "billing_error":
    case "not_found_error":
      return new InvalidRequestError(base);
    default:
      // api_error, overloaded_error, timeout_error and types newer than this package.
      return new ProviderServerError(base);
  }
}

function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === "AbortError" || error instanceof APIUserAbortError)
  );
}

/**
 * Any failure of a call — from the SDK, the transport or the stream — as one of the typed
 * `@cursor/run` errors: already-typed errors pass through; an abort is `RunCancelledError`;
 * connection failures, timeouts and streams cut mid-answer are `NetworkError`; API errors are
 * classified by status (overflow, auth, rate limit with retry-after, server, invalid request).
 */
export function toAnthropicProviderError(error: unknown): Error {
  if (CursorError.isInstance(error)) return error;
  if (isAbortError(error)) return new RunCancelledError({ cause: error });
  if (error instanceof APIConnectionError) {
    return new NetworkError({ message: error.message, providerId, cause: error });
  }
  if (error instanceof APIError) {
    return error.status === undefined ? fromErrorType(error) : fromStatus(error, error.status);
  }
  if (error instanceof AnthropicError) {
    return new ProviderServerError({ message: error.message, providerId, cause: error });
  }
  // Anything else surfaced while reading the response body: a reset socket, a body that
  // ended mid-event ("terminated"), a half-received line that failed to parse.
  const message = error instanceof Error ? error.message : String(error);
  return new NetworkError({ message: `connection failed: ${message}`, providerId, cause: error });
}
