import { describe, expect, it } from "vitest";
import {
  ConversationBusyError,
  ConversationError,
  ConversationNotFoundError,
  GatewayClosingError,
  InvalidCheckpointError,
  InvalidRunRequestError,
  RunConflictError,
  UnknownModelError,
} from "../conversation-errors.js";
import type { ConversationErrorCode } from "../conversation-errors.js";
import { StoreError } from "../store/store-error.js";
import { conversationErrorResponse } from "./conversation-error-response.js";

const issues = [{ path: "action.type", message: "Invalid option" }];
/** One of each refusal, with the answer docs/http-contract.md gives it. */
const cases: readonly {
  error: ConversationError;
  code: ConversationErrorCode;
  status: number;
  body: { code: string; message: string; issues?: unknown };
}[] = [
  {
    error: new InvalidRunRequestError({ issues }),
    code: "invalid_run_request",
    status: 400,
    body: { code: "invalid_request", message: "the agent run request is invalid", issues },
  },
  {
    error: new ConversationNotFoundError({ conversationId: "c1" }),
    code: "conversation_not_found",
    status: 404,
    body: { code: "not_found", message: "conversation c1 not found" },
  },
  {
    error: new ConversationBusyError({ conversationId: "c1" }),
    code: "conversation_busy",
    status: 409,
    body: { code: "conflict", message: "a run of conversation c1 is in progress" },
  },
  {
    error: new RunConflictError({ conversationId: "c1", message: "expectedRunId r0 is stale" }),
    code: "run_conflict",
    status: 409,
    body: { code: "conflict", message: "expectedRunId r0 is stale" },
  },
  {
    error: new InvalidCheckpointError({ message: "invalid checkpoint (mac): tampered" }),
    code: "invalid_checkpoint",
    status: 400,
    body: { code: "invalid_checkpoint", message: "invalid checkpoint (mac): tampered" },
  },
  {
    error: new UnknownModelError({ modelId: "gpt-9" }),
    code: "unknown_model",
    status: 400,
    body: {
      code: "invalid_request",
      message: "unknown model gpt-9",
      issues: [{ path: "model", message: "unknown model gpt-9" }],
    },
  },
  {
    error: new GatewayClosingError(),
    code: "gateway_closing",
    status: 409,
    body: { code: "conflict", message: "the gateway is shutting down" },
  },
];

describe("conversationErrorResponse", () => {
  it.each(cases)("$code → $status", ({ error, code, status, body }) => {
    expect(error.code).toBe(code);
    expect(ConversationError.isInstance(error)).toBe(true);
    const response = conversationErrorResponse(error)!;
    expect(response.status).toBe(status);
    expect({
      code: response.code,
      message: response.message,
      ...(response.issues === undefined ? {} : { issues: response.issues }),
    }).toEqual(body);
  });

  it("covers every code, each class with its own stable name and marker", () => {
    const codes = new Set(cases.map((c) => c.code));
    expect(codes.size).toBe(7);
    expect(new Set(cases.map((c) => c.error.name)).size).toBe(7);
    expect(RunConflictError.isInstance(new ConversationBusyError({ conversationId: "c" }))).toBe(
      false,
    );
    // The markers survive a second copy of the package (no instanceof).
    const copy = Object.assign(Object.create(null), cases[1]!.error);
    expect(ConversationNotFoundError.isInstance(copy)).toBe(true);
  });

  it("answers corrupt stored data with 500 and anything else not at all", () => {
    const corrupt = conversationErrorResponse(
      new StoreError({ reason: "corrupt", message: "conversation c1 failed its digest check" }),
    );
    expect(corrupt).toMatchObject({
      status: 500,
      code: "internal_error",
      message: "conversation c1 failed its digest check",
    });
    expect(
      conversationErrorResponse(new StoreError({ reason: "head-moved", message: "moved" })),
    ).toBeUndefined();
    expect(conversationErrorResponse(new Error("boom"))).toBeUndefined();
  });
});
