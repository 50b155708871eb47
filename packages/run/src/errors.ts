const cursorErrorMarker = Symbol.for("cursor.error");

/**
 * Base of every typed error in the @cursor packages. `isInstance` checks a `Symbol.for` marker,
 * so it works across duplicated copies of a package (where `instanceof` does not).
 */
export class CursorError extends Error {
  readonly [cursorErrorMarker] = true;
  constructor({ name, message, cause }: { name: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = name;
  }
  static isInstance(error: unknown): error is CursorError {
    return typeof error === "object" && error !== null && cursorErrorMarker in error;
  }
}

/** Builds the per-class marker check; each subclass gets its own `Symbol.for` key. */
function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

// ---------------------------------------------------------------- history errors

const historyConflictMarker = Symbol.for("cursor.error.history-conflict");
/** An append reused an existing message id or event id with different content. */
export class HistoryConflictError extends CursorError {
  readonly [historyConflictMarker] = true;
  readonly messageId: string;
  readonly eventId: string | undefined;
  constructor(options: { message: string; messageId: string; eventId?: string; cause?: unknown }) {
    super({ name: "HistoryConflictError", ...options });
    this.messageId = options.messageId;
    this.eventId = options.eventId;
  }
  static override isInstance(error: unknown): error is HistoryConflictError {
    return hasMarker(error, historyConflictMarker);
  }
}

const invalidHistoryMarker = Symbol.for("cursor.error.invalid-history");
/** A message does not fit the history it is appended to (schema, tool-round or epoch rules). */
export class InvalidHistoryError extends CursorError {
  readonly [invalidHistoryMarker] = true;
  readonly messageId: string | undefined;
  constructor(options: { message: string; messageId?: string; cause?: unknown }) {
    super({ name: "InvalidHistoryError", ...options });
    this.messageId = options.messageId;
  }
  static override isInstance(error: unknown): error is InvalidHistoryError {
    return hasMarker(error, invalidHistoryMarker);
  }
}

// ---------------------------------------------------------------- provider errors

export type ProviderErrorKind =
  | "context-overflow"
  | "authentication"
  | "quota"
  | "rate-limit"
  | "server"
  | "network"
  | "refusal"
  | "invalid-request";

const providerErrorMarker = Symbol.for("cursor.error.provider");

interface ProviderErrorOptions {
  message: string;
  providerId: string;
  status?: number;
  cause?: unknown;
}

/** Base of the classified provider failures; `retryable` drives the model loop's backoff. */
export abstract class ProviderError extends CursorError {
  readonly [providerErrorMarker] = true;
  abstract readonly kind: ProviderErrorKind;
  abstract readonly retryable: boolean;
  readonly providerId: string;
  readonly status: number | undefined;
  constructor(name: string, options: ProviderErrorOptions) {
    super({ name, message: options.message, cause: options.cause });
    this.providerId = options.providerId;
    this.status = options.status;
  }
  static override isInstance(error: unknown): error is ProviderError {
    return hasMarker(error, providerErrorMarker);
  }
}

const contextOverflowMarker = Symbol.for("cursor.error.context-overflow");
/** The provider refused the request because the prompt exceeds the model's context window. */
export class ContextOverflowError extends ProviderError {
  readonly [contextOverflowMarker] = true;
  readonly kind = "context-overflow";
  readonly retryable = false;
  constructor(options: ProviderErrorOptions) {
    super("ContextOverflowError", options);
  }
  static override isInstance(error: unknown): error is ContextOverflowError {
    return hasMarker(error, contextOverflowMarker);
  }
}

const authenticationMarker = Symbol.for("cursor.error.authentication");
export class AuthenticationError extends ProviderError {
  readonly [authenticationMarker] = true;
  readonly kind = "authentication";
  readonly retryable = false;
  constructor(options: ProviderErrorOptions) {
    super("AuthenticationError", options);
  }
  static override isInstance(error: unknown): error is AuthenticationError {
    return hasMarker(error, authenticationMarker);
  }
}

const quotaExceededMarker = Symbol.for("cursor.error.quota-exceeded");
/**
 * The account has no quota or credit left (OpenAI `insufficient_quota`, Anthropic
 * `billing_error`, HTTP 402). Unlike a rate limit it does not pass by waiting: never retried.
 */
export class QuotaExceededError extends ProviderError {
  readonly [quotaExceededMarker] = true;
  readonly kind = "quota";
  readonly retryable = false;
  constructor(options: ProviderErrorOptions) {
    super("QuotaExceededError", options);
  }
  static override isInstance(error: unknown): error is QuotaExceededError {
    return hasMarker(error, quotaExceededMarker);
  }
}

const rateLimitMarker = Symbol.for("cursor.error.rate-limit");
export class RateLimitError extends ProviderError {
  readonly [rateLimitMarker] = true;
  readonly kind = "rate-limit";
  readonly retryable = true;
  /** From the provider's retry-after headers, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(options: ProviderErrorOptions & { retryAfterMs?: number }) {
    super("RateLimitError", options);
    this.retryAfterMs = options.retryAfterMs;
  }
  static override isInstance(error: unknown): error is RateLimitError {
    return hasMarker(error, rateLimitMarker);
  }
}

const serverMarker = Symbol.for("cursor.error.server");
export class ProviderServerError extends ProviderError {
  readonly [serverMarker] = true;
  readonly kind = "server";
  readonly retryable = true;
  constructor(options: ProviderErrorOptions) {
    super("ProviderServerError", options);
  }
  static override isInstance(error: unknown): error is ProviderServerError {
    return hasMarker(error, serverMarker);
  }
}

const networkMarker = Symbol.for("cursor.error.network");
/** Connection failures and streams cut before their end. */
export class NetworkError extends ProviderError {
  readonly [networkMarker] = true;
  readonly kind = "network";
  readonly retryable = true;
  constructor(options: ProviderErrorOptions) {
    super("NetworkError", options);
  }
  static override isInstance(error: unknown): error is NetworkError {
    return hasMarker(error, networkMarker);
  }
}

const refusalMarker = Symbol.for("cursor.error.refusal");
/** The model refused to answer (safety refusal); not retried. */
export class RefusalError extends ProviderError {
  readonly [refusalMarker] = true;
  readonly kind = "refusal";
  readonly retryable = false;
  constructor(options: ProviderErrorOptions) {
    super("RefusalError", options);
  }
  static override isInstance(error: unknown): error is RefusalError {
    return hasMarker(error, refusalMarker);
  }
}

const invalidRequestMarker = Symbol.for("cursor.error.invalid-request");
/** The provider rejected the request as malformed (a 400 that is not an overflow). */
export class InvalidRequestError extends ProviderError {
  readonly [invalidRequestMarker] = true;
  readonly kind = "invalid-request";
  readonly retryable = false;
  constructor(options: ProviderErrorOptions) {
    super("InvalidRequestError", options);
  }
  static override isInstance(error: unknown): error is InvalidRequestError {
    return hasMarker(error, invalidRequestMarker);
  }
}

const cancelledMarker = Symbol.for("cursor.error.cancelled");
/** The run was cancelled through its abort signal. */
export class RunCancelledError extends CursorError {
  readonly [cancelledMarker] = true;
  constructor(options: { message?: string; cause?: unknown } = {}) {
    super({
      name: "RunCancelledError",
      message: options.message ?? "the run was cancelled",
      cause: options.cause,
    });
  }
  static override isInstance(error: unknown): error is RunCancelledError {
    return hasMarker(error, cancelledMarker);
  }
}
