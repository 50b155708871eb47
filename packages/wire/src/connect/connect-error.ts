import { CursorError } from "@cursor/run";

/** The Connect protocol's error codes (https://connectrpc.com/docs/protocol#error-codes). */
export const connectCodes = [
  "canceled",
  "unknown",
  "invalid_argument",
  "deadline_exceeded",
  "not_found",
  "already_exists",
  "permission_denied",
  "resource_exhausted",
  "failed_precondition",
  "aborted",
  "out_of_range",
  "unimplemented",
  "internal",
  "unavailable",
  "data_loss",
  "unauthenticated",
] as const;

export type ConnectCode = (typeof connectCodes)[number];

/** The HTTP status of a unary Connect error (the Connect protocol's mapping). */
export const connectHttpStatus: Readonly<Record<ConnectCode, number>> = Object.freeze({
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
});

/**
 * The `aiserver.v1.ErrorDetails.Error` kinds the gateway reports (facts §7.2). The IDE renders
 * a card from the details (title, detail, retry button when `retryable`).
 */
export type ErrorDetailKind =
  | "bad-model-name"
  | "custom-message"
  | "bad-request"
  | "conversation-too-long"
  | "provider-error"
  | "timeout"
  | "internal";

export interface ConnectErrorDetail {
  readonly kind: ErrorDetailKind;
  readonly title: string;
  readonly detail: string;
  readonly retryable: boolean;
  /** A failure the user can act on (a bad model id), not a gateway fault. */
  readonly expected?: boolean;
}

const connectErrorMarker = Symbol.for("cursor.error.wire.connect");

/**
 * A failure reported to the IDE as a Connect error: the end-stream frame of a RunSSE stream, or
 * the JSON body of a unary reply. The message must never carry a secret (it is shown and logged).
 */
export class ConnectError extends CursorError {
  readonly [connectErrorMarker] = true;
  readonly code: ConnectCode;
  readonly detail: ConnectErrorDetail | undefined;

  constructor({
    code,
    message,
    detail,
    cause,
  }: {
    code: ConnectCode;
    message: string;
    detail?: ConnectErrorDetail;
    cause?: unknown;
  }) {
    super({ name: "ConnectError", message, cause });
    this.code = code;
    this.detail = detail;
  }

  static override isInstance(error: unknown): error is ConnectError {
    return typeof error === "object" && error !== null && connectErrorMarker in error;
  }
}
