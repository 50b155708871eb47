import {
  AuthenticationError,
  ContextOverflowError,
  CursorError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  QuotaExceededError,
  RateLimitError,
  RunCancelledError,
} from "./errors.js";
import type { ProviderError } from "./errors.js";
import { parseRetryAfterMs } from "./retry-after.js";
import type { HeaderSource } from "./retry-after.js";

/** What a provider package reads off one failed call: an HTTP answer or an in-stream error. */
export interface ProviderFailureDetails {
  /** HTTP status; undefined for an error reported inside an already open stream. */
  readonly status?: number | undefined;
  /** The error body's machine-readable code (`insufficient_quota`, `context_length_exceeded`). */
  readonly code?: string | null | undefined;
  /** The error body's type or category (`rate_limit_error`, `billing_error`); checked like `code`. */
  readonly type?: string | null | undefined;
  readonly message: string;
  /** Response headers, for `retry-after-ms` / `retry-after` on a rate limit. */
  readonly headers?: HeaderSource | undefined;
}

/** A provider SDK's error as the provider package understands it. */
export type UnwrappedProviderError =
  /** The API answered with an error (HTTP status) or sent one inside the stream. */
  | { readonly kind: "response"; readonly details: ProviderFailureDetails }
  /** The SDK's connection error or timeout: nothing (or not all) of the answer arrived. */
  | { readonly kind: "transport"; readonly message: string }
  /** The SDK's own abort error. */
  | { readonly kind: "cancelled" }
  /** The SDK could not make sense of what the server sent. */
  | { readonly kind: "malformed"; readonly message: string };

/**
 * The only provider-specific parts of error classification: how the provider words a context
 * overflow, and how to read its SDK's error classes. Everything else (what a status or a code
 * means, what is retried) is decided once, here, for every provider.
 */
export interface ProviderErrorRules {
  readonly providerId: string;
  /** Error codes that mean "the prompt does not fit the context window". */
  readonly overflowCodes?: readonly string[];
  /** Messages that mean the same, for servers that only say it in words. */
  readonly overflowPattern?: RegExp;
  /** Reads the provider SDK's errors; undefined for anything that is not one of them. */
  readonly unwrap: (error: unknown) => UnwrappedProviderError | undefined;
}

// Codes and types providers use for the same failure, across OpenAI, Anthropic and the
// OpenAI-compatible servers (DeepSeek, vLLM, proxies).
const quotaCodes: ReadonlySet<string> = new Set([
  "insufficient_quota",
  "billing_error",
  "billing_hard_limit_reached",
  "insufficient_balance",
  "quota_exceeded",
  "payment_required",
]);
const authenticationCodes: ReadonlySet<string> = new Set([
  "invalid_api_key",
  "authentication_error",
  "permission_error",
  "unauthorized",
]);
const rateLimitCodes: ReadonlySet<string> = new Set([
  "rate_limit_exceeded",
  "rate_limit_error",
  "too_many_requests",
]);
const invalidRequestCodes: ReadonlySet<string> = new Set([
  "invalid_request_error",
  "not_found_error",
  "model_not_found",
]);

/** Statuses on which an overflow wording means an overflow (a 429 "too many tokens" does not). */
const overflowStatuses: ReadonlySet<number | undefined> = new Set([400, 413, undefined]);

function hasCode(details: ProviderFailureDetails, codes: ReadonlySet<string>): boolean {
  return (
    (typeof details.code === "string" && codes.has(details.code)) ||
    (typeof details.type === "string" && codes.has(details.type))
  );
}

type OverflowRules = Pick<ProviderErrorRules, "providerId" | "overflowCodes" | "overflowPattern">;

function isOverflow(rules: OverflowRules, details: ProviderFailureDetails): boolean {
  if (details.status === 413) return true;
  if (!overflowStatuses.has(details.status)) return false;
  const codes = new Set(rules.overflowCodes ?? []);
  return hasCode(details, codes) || (rules.overflowPattern?.test(details.message) ?? false);
}

/**
 * One failed call as a typed `@cursor/run` error, the same way for every provider:
 *
 * | what | error | retried |
 * | --- | --- | --- |
 * | 413, or an overflow code / wording on 400 or in a stream | `ContextOverflowError` | no (the loop compacts once) |
 * | 402, or a quota / billing code (`insufficient_quota` also on a 429) | `QuotaExceededError` | no |
 * | 401, 403, or an auth code | `AuthenticationError` | no |
 * | 429, or a rate-limit code | `RateLimitError` (with `retryAfterMs`) | yes |
 * | 408 | `NetworkError` | yes |
 * | 409, 5xx (529 included) | `ProviderServerError` | yes |
 * | any other 4xx | `InvalidRequestError` | no |
 * | in a stream: an invalid-request code (`invalid_*`) | `InvalidRequestError` | no |
 * | in a stream: any other or no code | `ProviderServerError` | yes |
 */
export function classifyProviderFailure({
  rules,
  details,
  cause,
  now,
}: {
  rules: OverflowRules;
  details: ProviderFailureDetails;
  cause?: unknown;
  now?: () => number;
}): ProviderError {
  const { status, message } = details;
  const options = {
    message,
    providerId: rules.providerId,
    ...(status === undefined ? {} : { status }),
    ...(cause === undefined ? {} : { cause }),
  };
  if (isOverflow(rules, details)) return new ContextOverflowError(options);
  if (status === 402 || hasCode(details, quotaCodes)) return new QuotaExceededError(options);
  if (status === 401 || status === 403 || hasCode(details, authenticationCodes)) {
    return new AuthenticationError(options);
  }
  if (status === 429 || hasCode(details, rateLimitCodes)) {
    const retryAfterMs = parseRetryAfterMs({
      headers: details.headers,
      ...(now === undefined ? {} : { now }),
    });
    return new RateLimitError(retryAfterMs === undefined ? options : { ...options, retryAfterMs });
  }
  if (status === undefined) {
    const invalid =
      hasCode(details, invalidRequestCodes) ||
      (typeof details.code === "string" && details.code.startsWith("invalid_"));
    return invalid ? new InvalidRequestError(options) : new ProviderServerError(options);
  }
  // The request did not reach the model in time: a transport failure, retried like one.
  if (status === 408) return new NetworkError(options);
  if (status === 409 || status >= 500) return new ProviderServerError(options);
  if (status >= 400) return new InvalidRequestError(options);
  // An error object with a success or redirect status: the server misbehaved.
  return new ProviderServerError(options);
}

// Transport failures that reach the adapter unwrapped (SDKs wrap only those before the response
// arrives): undici's `TypeError: terminated` / `fetch failed` when a socket closes, and Node or
// undici socket error codes on the error or its cause.
const transportErrorCode =
  /^(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR)/;

function hasTransportCode(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !("code" in value)) return false;
  return typeof value.code === "string" && transportErrorCode.test(value.code);
}

/** True for a broken connection or response body that no SDK wrapped. */
export function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (hasTransportCode(error) || hasTransportCode(error.cause)) return true;
  return error instanceof TypeError && /^(?:terminated|fetch failed)$/.test(error.message);
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

/**
 * Any failure of a provider call as a typed `@cursor/run` error. An aborted `signal` wins (an
 * SDK ends an aborted stream in ways that look like other failures); typed errors pass through;
 * the provider's SDK errors are unwrapped by `rules.unwrap` and classified by
 * `classifyProviderFailure`; transport failures no SDK wrapped are `NetworkError`s; unparsable
 * stream data is a `ProviderServerError`. Anything else is a bug, not a provider failure, and is
 * returned unchanged, so the loop reports it as `internal_error` instead of retrying it.
 */
export function toProviderError({
  error,
  rules,
  signal,
  now,
}: {
  error: unknown;
  rules: ProviderErrorRules;
  signal?: AbortSignal | undefined;
  now?: () => number;
}): unknown {
  if (signal?.aborted === true) {
    return RunCancelledError.isInstance(error)
      ? error
      : new RunCancelledError({ cause: signal.reason ?? error });
  }
  if (CursorError.isInstance(error)) return error;
  if (isAbortError(error)) return new RunCancelledError({ cause: error });
  const { providerId } = rules;
  const unwrapped = rules.unwrap(error);
  if (unwrapped !== undefined) {
    switch (unwrapped.kind) {
      case "response":
        return classifyProviderFailure({
          rules,
          details: unwrapped.details,
          cause: error,
          ...(now === undefined ? {} : { now }),
        });
      case "transport":
        return new NetworkError({ message: unwrapped.message, providerId, cause: error });
      case "cancelled":
        return new RunCancelledError({ cause: error });
      case "malformed":
        return new ProviderServerError({ message: unwrapped.message, providerId, cause: error });
      default: {
        const exhaustive: never = unwrapped;
        throw new TypeError(`unknown unwrapped error ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  if (isTransportFailure(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return new NetworkError({
      message: `the connection broke: ${message}`,
      providerId,
      cause: error,
    });
  }
  if (error instanceof SyntaxError) {
    return new ProviderServerError({
      message: `malformed stream data: ${error.message}`,
      providerId,
      cause: error,
    });
  }
  return error;
}
