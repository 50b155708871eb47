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
  if (ProviderError.isInstance(error)) return { code: providerCodes[error.kind], message };
  if (HistoryConflictError.isInstance(error)) return { code: "history_conflict", message };
  if (InvalidHistoryError.isInstance(error)) return { code: "invalid_history", message };
  if (RunCancelledError.isInstance(error)) return { code: "cancelled", message };
  if (error instanceof LoopFailure) return { code: error.code, message };
  return { code: "internal_error", message };
}
