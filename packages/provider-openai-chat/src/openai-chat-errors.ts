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
import { APIConnectionError, APIError, APIUserAbortError, OpenAIError } from "openai";

// OpenAI answers `context_length_exceeded`; compatible servers (vLLM, DeepSeek, proxies) only say
// it in the message, in several wordings.
const overflowCodes = new Set(["context_length_exceeded", "string_above_max_length_tokens"]);
const overflowMessage =
  /context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long|too many (input )?tokens|input (is )?too long|reduce the length of the messages/i;
const rateLimitCodes = new Set(["rate_limit_exceeded", "rate_limit_error"]);

function isOverflow(error: APIError): boolean {
  return (
    (typeof error.code === "string" && overflowCodes.has(error.code)) ||
    overflowMessage.test(error.message)
  );
}

// Transport failures that reach us unwrapped (the SDK wraps only those before the response):
// undici's `TypeError: terminated` when a socket closes mid-body, and Node socket errors. Other
// TypeErrors are bugs and must not be retried as if they were transient.
const networkErrorCode =
  /^(ECONN|EPIPE|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR)/;

function hasNetworkCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && networkErrorCode.test(code);
}

function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (hasNetworkCode(error) || hasNetworkCode(error.cause)) return true;
  return (
    error instanceof TypeError &&
    (error.message === "terminated" || error.message === "fetch failed")
  );
}

export interface ClassifyOpenAIChatErrorInput {
  readonly error: unknown;
  readonly providerId: string;
  readonly signal?: AbortSignal | undefined;
  /** Clock for HTTP-date `retry-after` values. */
  readonly now?: () => number;
}

/**
 * Maps whatever the SDK (or the transport under it) threw to the typed errors of `@cursor/run`.
 * Errors that are already typed pass through; anything unrecognised (a bug, not a provider
 * failure) is returned unchanged so it is not retried as if it were transient.
 */
export function classifyOpenAIChatError({
  error,
  providerId,
  signal,
  now,
}: ClassifyOpenAIChatErrorInput): unknown {
  if (signal?.aborted === true || error instanceof APIUserAbortError) {
    return RunCancelledError.isInstance(error)
      ? error
      : new RunCancelledError({ cause: signal?.reason ?? error });
  }
  if (CursorError.isInstance(error)) return error;
  const base = { providerId, cause: error };
  if (error instanceof APIConnectionError) {
    return new NetworkError({
      ...base,
      message: `connection to the provider failed: ${error.message}`,
    });
  }
  if (error instanceof APIError) return classifyApiError({ error, providerId, now });
  if (isTransportFailure(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return new NetworkError({ ...base, message: `the provider stream failed: ${message}` });
  }
  if (error instanceof SyntaxError) {
    return new ProviderServerError({ ...base, message: `malformed stream data: ${error.message}` });
  }
  if (error instanceof OpenAIError && /api ?key/i.test(error.message)) {
    return new AuthenticationError({ ...base, message: error.message });
  }
  return error;
}

function classifyApiError({
  error,
  providerId,
  now,
}: {
  error: APIError;
  providerId: string;
  now?: (() => number) | undefined;
}): unknown {
  const { status } = error;
  const base = { providerId, cause: error, message: error.message, status };
  if (isOverflow(error) && (status === undefined || status === 400 || status === 413)) {
    return new ContextOverflowError(base);
  }
  if (status === 401 || status === 403) return new AuthenticationError(base);
  const rateLimited =
    status === 429 || (typeof error.code === "string" && rateLimitCodes.has(error.code));
  if (rateLimited) {
    const retryAfterMs = parseRetryAfterMs({ headers: error.headers, ...(now ? { now } : {}) });
    return new RateLimitError({ ...base, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
  }
  // No status: an `error` event inside a 200 stream, which OpenAI sends for server-side failures.
  if (status === undefined || status >= 500 || status === 408 || status === 409) {
    return new ProviderServerError(base);
  }
  return new InvalidRequestError(base);
}
