import {
  HistoryConflictError,
  InvalidHistoryError,
  ProviderError,
  RunCancelledError,
} from "./errors.js";
import type { ProviderErrorKind } from "./errors.js";

/** The `error` of a failed run (`run.ended {reason: "failed", error}` on the wire). */
export interface LoopError {
  readonly code: string;
  readonly message: string;
  /**
   * Whether trying the same request again later may succeed: the provider failure's own
   * classification (rate limits, server errors, transport failures); false for everything else.
   */
  readonly retryable: boolean;
}

const providerCodes = {
  "context-overflow": "context_overflow",
  authentication: "provider_authentication",
  quota: "provider_quota_exceeded",
  "rate-limit": "rate_limited",
  server: "provider_error",
  network: "provider_unavailable",
  refusal: "refusal",
  "invalid-request": "provider_invalid_request",
} as const satisfies Record<ProviderErrorKind, string>;

/** A failure of the loop itself (not of the provider or the history), with its code. */
export class LoopFailure extends Error {
  readonly code: string;
  constructor({ code, message, cause }: { code: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "LoopFailure";
    this.code = code;
  }
}

/** Maps any thrown value to a stable, snake_case error code and a message. */
export function describeLoopError(error: unknown): LoopError {
  const message = error instanceof Error ? error.message : String(error);
  if (ProviderError.isInstance(error)) {
    return { code: providerCodes[error.kind], message, retryable: error.retryable };
  }
  const code = HistoryConflictError.isInstance(error)
    ? "history_conflict"
    : InvalidHistoryError.isInstance(error)
      ? "invalid_history"
      : RunCancelledError.isInstance(error)
        ? "cancelled"
        : error instanceof LoopFailure
          ? error.code
          : "internal_error";
  return { code, message, retryable: false };
}
