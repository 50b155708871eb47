import type { FastifyReply } from "fastify";

export type HttpErrorCode =
  | "invalid_request"
  | "unsupported_media_type"
  | "unauthorized"
  | "not_found"
  | "conflict"
  | "too_large"
  | "invalid_checkpoint"
  | "checkpoint_incomplete"
  | "internal_error";

export interface ErrorIssue {
  readonly path: string;
  readonly message: string;
}

const statusByCode: Record<HttpErrorCode, number> = {
  invalid_request: 400,
  unsupported_media_type: 415,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  invalid_checkpoint: 400,
  checkpoint_incomplete: 409,
  internal_error: 500,
};

/** An error found before streaming starts; becomes `{"error": {code, message, issues?}}`. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly issues?: readonly ErrorIssue[],
  ) {
    super(message);
    this.name = "HttpError";
    this.status = statusByCode[code];
  }
}

export function sendHttpError(reply: FastifyReply, error: HttpError): FastifyReply {
  return reply
    .code(error.status)
    .type("application/json")
    .send({
      error: {
        code: error.code,
        message: error.message,
        ...(error.issues === undefined ? {} : { issues: error.issues }),
      },
    });
}
