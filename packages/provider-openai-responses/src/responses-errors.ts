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
import type { ProviderError } from "@cursor/run";
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { responsesErrorBodySchema } from "./responses-api.js";
import { responsesProviderId as providerId } from "./responses-provider-id.js";

// OpenAI says `context_length_exceeded`; compatible servers only say it in words.
const overflowCodes: ReadonlySet<string> = new Set(["context_length_exceeded"]);
const overflowMessage =
  /context[_ ]length|context window|maximum context|prompt is too long|too many (?:input )?tokens|input tokens exceed|exceeds? the (?:model'?s? )?(?:maximum )?(?:context|input)/i;

export function isContextOverflow({
  code,
  message,
}: {
  code: string | null | undefined;
  message: string | null | undefined;
}): boolean {
  return (
    (code !== null && code !== undefined && overflowCodes.has(code)) ||
    (message !== null && message !== undefined && overflowMessage.test(message))
  );
}

/** An HTTP error status (with the error body's code and message) as a typed provider error. */
export function classifyResponsesStatus({
  status,
  code,
  message,
  headers,
  now,
  cause,
}: {
  status: number;
  code: string | null | undefined;
  message: string;
  headers: Headers | undefined;
  now: number;
  cause?: unknown;
}): ProviderError {
  const options = { message, providerId, status, cause };
  if (isContextOverflow({ code, message })) return new ContextOverflowError(options);
  if (status === 401 || status === 403) return new AuthenticationError(options);
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs({ headers, now: () => now });
    return new RateLimitError(retryAfterMs === undefined ? options : { ...options, retryAfterMs });
  }
  if (status === 408) return new NetworkError(options);
  if (status === 409 || status >= 500) return new ProviderServerError(options);
  return new InvalidRequestError(options);
}

/**
 * An error reported inside an open stream (an `error` event or a `response.failed` response):
 * no status, only the error body's code and message.
 */
export function classifyResponsesStreamError({
  code,
  message,
  cause,
}: {
  code: string | null | undefined;
  message: string | null | undefined;
  cause?: unknown;
}): ProviderError {
  const text = message ?? code ?? "the response failed";
  const options = { message: text, providerId, cause };
  if (isContextOverflow({ code, message })) return new ContextOverflowError(options);
  if (code === "rate_limit_exceeded") return new RateLimitError(options);
  if (code !== null && code !== undefined && /^invalid_/.test(code)) {
    return new InvalidRequestError(options);
  }
  return new ProviderServerError(options);
}

// Transport failures that reach the adapter unwrapped (the SDK wraps only those before the
// response arrives): undici's `TypeError: terminated` / `fetch failed` when a socket closes, and
// Node or undici socket error codes, on the error or its cause.
const transportErrorCode =
  /^(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR)/;

function hasTransportCode(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !("code" in value)) return false;
  return typeof value.code === "string" && transportErrorCode.test(value.code);
}

export function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (hasTransportCode(error) || hasTransportCode(error.cause)) return true;
  return error instanceof TypeError && /^(?:terminated|fetch failed)$/.test(error.message);
}

/**
 * Any failure of a stream call as a typed `@cursor/run` error. Typed errors pass through; an
 * abort becomes `RunCancelledError`; connection failures and broken response bodies become
 * `NetworkError`. Anything else is a bug, not a provider failure, and is returned unchanged so
 * that it is not retried as if it were transient.
 */
export function toResponsesError(error: unknown, { now }: { now: number }): unknown {
  if (CursorError.isInstance(error)) return error;
  if (error instanceof APIUserAbortError) return new RunCancelledError({ cause: error });
  if (error instanceof APIConnectionError) {
    return new NetworkError({ message: error.message, providerId, cause: error });
  }
  if (error instanceof APIError) {
    const body = responsesErrorBodySchema.safeParse(error.error);
    const code = error.code ?? (body.success ? body.data.code : undefined);
    if (error.status === undefined) {
      const message = body.success ? body.data.message : undefined;
      return classifyResponsesStreamError({
        code,
        message: message ?? error.message,
        cause: error,
      });
    }
    return classifyResponsesStatus({
      status: error.status,
      code,
      message: error.message,
      headers: error.headers,
      now,
      cause: error,
    });
  }
  if (isTransportFailure(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return new NetworkError({ message: `the stream broke: ${message}`, providerId, cause: error });
  }
  if (error instanceof SyntaxError) {
    // The SDK parses each SSE data line as JSON; a line that is not JSON is the server's fault.
    return new ProviderServerError({
      message: `malformed stream data: ${error.message}`,
      providerId,
      cause: error,
    });
  }
  return error;
}
