import { RequestValidationError } from "@cursor/request";
import type { ConnectCode } from "../connect/connect-error.js";
import { ConnectError } from "../connect/connect-error.js";
import type { WireRunError } from "../ports.js";

/**
 * Connect codes of the conversation service's domain errors (SEAM.md), by their `code` string;
 * both the JSON contract's codes and the error class names' snake case are recognised.
 */
const domainCodes: Readonly<Record<string, ConnectCode>> = {
  invalid_request: "invalid_argument",
  invalid_run_request: "invalid_argument",
  invalid_checkpoint: "invalid_argument",
  not_found: "not_found",
  conversation_not_found: "not_found",
  conflict: "failed_precondition",
  busy: "failed_precondition",
  conversation_busy: "failed_precondition",
  run_conflict: "failed_precondition",
  unknown_model: "not_found",
  closing: "unavailable",
  gateway_closing: "unavailable",
};

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The Connect error for a failure of `prepareRun` (nothing was stored). */
export function connectErrorFromPrepare(error: unknown): ConnectError {
  if (ConnectError.isInstance(error)) return error;
  if (RequestValidationError.isInstance(error)) {
    return new ConnectError({ code: "invalid_argument", message: error.message, cause: error });
  }
  const code = codeOf(error);
  const connectCode = code === undefined ? undefined : domainCodes[code];
  if (code === "unknown_model") {
    return new ConnectError({
      code: "not_found",
      message: messageOf(error),
      detail: {
        kind: "bad-model-name",
        title: "AI Model Not Found",
        detail: messageOf(error),
        retryable: false,
        expected: true,
      },
      cause: error,
    });
  }
  if (connectCode !== undefined) {
    return new ConnectError({ code: connectCode, message: messageOf(error), cause: error });
  }
  return new ConnectError({
    code: "internal",
    message: `the run could not be prepared: ${messageOf(error)}`,
    detail: {
      kind: "internal",
      title: "Internal error",
      detail: messageOf(error),
      retryable: false,
    },
    cause: error,
  });
}

/** Loop error codes of provider failures (`describeLoopError`) and their Connect codes. */
const providerCodes: Readonly<Record<string, { code: ConnectCode; title: string }>> = {
  provider_error: { code: "unavailable", title: "Provider error" },
  provider_unavailable: { code: "unavailable", title: "Provider unreachable" },
  rate_limited: { code: "resource_exhausted", title: "Provider rate limit" },
  // Not `unauthenticated`: that is the IDE's own login, this is the provider key.
  provider_authentication: { code: "failed_precondition", title: "Provider rejected the API key" },
  provider_invalid_request: { code: "failed_precondition", title: "Provider rejected the request" },
  refusal: { code: "failed_precondition", title: "The model refused" },
};

/**
 * The end-stream error of a failed run: `PROVIDER_ERROR` details with `is_retryable` from the
 * failure kind for provider failures, the context-overflow card for an overflowing context,
 * `INTERNAL` for anything else.
 */
export function connectErrorFromRun(error: WireRunError | undefined): ConnectError {
  if (error === undefined) {
    return new ConnectError({
      code: "internal",
      message: "the run failed",
      detail: {
        kind: "internal",
        title: "Internal error",
        detail: "The run failed.",
        retryable: true,
      },
    });
  }
  const provider = providerCodes[error.code];
  if (provider !== undefined) {
    return new ConnectError({
      code: provider.code,
      message: error.message,
      detail: {
        kind: "provider-error",
        title: provider.title,
        detail: error.message,
        retryable: error.retryable,
      },
    });
  }
  if (error.code === "context_overflow") {
    return new ConnectError({
      code: "invalid_argument",
      message: error.message,
      detail: {
        kind: "conversation-too-long",
        title: "Context Too Large",
        detail: error.message,
        retryable: false,
      },
    });
  }
  return new ConnectError({
    code: "internal",
    message: error.message,
    detail: {
      kind: "internal",
      title: "Internal error",
      detail: error.message,
      retryable: error.retryable,
    },
  });
}

/** The end-stream error of a cancelled turn. */
export function cancelledError(reason: string): ConnectError {
  return new ConnectError({ code: "canceled", message: reason });
}
