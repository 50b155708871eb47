import { CursorError } from "@cursor/run";

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

/**
 * The stable codes of the conversation service's refusals. A front door maps each to its own
 * answer: the JSON HTTP layer to the contract's status codes, the Cursor wire to Connect codes.
 */
export type ConversationErrorCode =
  | "invalid_run_request"
  | "conversation_not_found"
  | "conversation_busy"
  | "run_conflict"
  | "invalid_checkpoint"
  | "unknown_model"
  | "gateway_closing";

const conversationErrorMarker = Symbol.for("cursor.error.conversation");

/**
 * A request the conversation service refuses before anything is stored. Front-door neutral: no
 * HTTP status, no Connect code, only the stable `code`.
 */
export abstract class ConversationError extends CursorError {
  readonly [conversationErrorMarker] = true;
  abstract readonly code: ConversationErrorCode;
  static override isInstance(error: unknown): error is ConversationError {
    return hasMarker(error, conversationErrorMarker);
  }
}

export interface RequestIssue {
  readonly path: string;
  readonly message: string;
}

const invalidRunRequestMarker = Symbol.for("cursor.error.invalid-run-request");
/** The body is not a valid agent run request; `issues` names every offending path. */
export class InvalidRunRequestError extends ConversationError {
  readonly [invalidRunRequestMarker] = true;
  readonly code = "invalid_run_request" as const;
  readonly issues: readonly RequestIssue[];
  constructor({
    issues,
    message = "the agent run request is invalid",
  }: {
    issues: readonly RequestIssue[];
    message?: string;
  }) {
    super({ name: "InvalidRunRequestError", message });
    this.issues = issues;
  }
  static override isInstance(error: unknown): error is InvalidRunRequestError {
    return hasMarker(error, invalidRunRequestMarker);
  }
}

const conversationNotFoundMarker = Symbol.for("cursor.error.conversation-not-found");
/** No such conversation for this tenant, and nothing in the request to start or resume it. */
export class ConversationNotFoundError extends ConversationError {
  readonly [conversationNotFoundMarker] = true;
  readonly code = "conversation_not_found" as const;
  readonly conversationId: string;
  constructor({ conversationId }: { conversationId: string }) {
    super({
      name: "ConversationNotFoundError",
      message: `conversation ${conversationId} not found`,
    });
    this.conversationId = conversationId;
  }
  static override isInstance(error: unknown): error is ConversationNotFoundError {
    return hasMarker(error, conversationNotFoundMarker);
  }
}

const conversationBusyMarker = Symbol.for("cursor.error.conversation-busy");
/** Another run of the conversation is in progress (in this process or another one). */
export class ConversationBusyError extends ConversationError {
  readonly [conversationBusyMarker] = true;
  readonly code = "conversation_busy" as const;
  readonly conversationId: string;
  constructor({ conversationId }: { conversationId: string }) {
    super({
      name: "ConversationBusyError",
      message: `a run of conversation ${conversationId} is in progress`,
    });
    this.conversationId = conversationId;
  }
  static override isInstance(error: unknown): error is ConversationBusyError {
    return hasMarker(error, conversationBusyMarker);
  }
}

const runConflictMarker = Symbol.for("cursor.error.run-conflict");
/**
 * The request does not fit the conversation: an `expectedRunId` that is not the latest run, tool
 * results for calls the run is not waiting for, a checkpoint of another conversation, an id
 * reused for other content.
 */
export class RunConflictError extends ConversationError {
  readonly [runConflictMarker] = true;
  readonly code = "run_conflict" as const;
  readonly conversationId: string;
  constructor({
    conversationId,
    message,
    cause,
  }: {
    conversationId: string;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "RunConflictError", message, cause });
    this.conversationId = conversationId;
  }
  static override isInstance(error: unknown): error is RunConflictError {
    return hasMarker(error, runConflictMarker);
  }
}

const invalidCheckpointMarker = Symbol.for("cursor.error.invalid-checkpoint");
/**
 * The request's checkpoint is corrupt, truncated, tampered with, or another tenant's; or
 * (`incomplete`) a delta this process cannot resume from without the checkpoints before it.
 */
export class InvalidCheckpointError extends ConversationError {
  readonly [invalidCheckpointMarker] = true;
  readonly code = "invalid_checkpoint" as const;
  /** True: genuine, but a delta without its base; the client resends the whole chain. */
  readonly incomplete: boolean;
  constructor({
    message,
    incomplete = false,
    cause,
  }: {
    message: string;
    incomplete?: boolean;
    cause?: unknown;
  }) {
    super({ name: "InvalidCheckpointError", message, cause });
    this.incomplete = incomplete;
  }
  static override isInstance(error: unknown): error is InvalidCheckpointError {
    return hasMarker(error, invalidCheckpointMarker);
  }
}

const unknownModelMarker = Symbol.for("cursor.error.unknown-model");
/** The request names a model the catalog does not list (front doors that only offer its ids). */
export class UnknownModelError extends ConversationError {
  readonly [unknownModelMarker] = true;
  readonly code = "unknown_model" as const;
  readonly modelId: string;
  constructor({ modelId }: { modelId: string }) {
    super({ name: "UnknownModelError", message: `unknown model ${modelId}` });
    this.modelId = modelId;
  }
  static override isInstance(error: unknown): error is UnknownModelError {
    return hasMarker(error, unknownModelMarker);
  }
}

const gatewayClosingMarker = Symbol.for("cursor.error.gateway-closing");
/** The gateway is shutting down and takes no more runs. */
export class GatewayClosingError extends ConversationError {
  readonly [gatewayClosingMarker] = true;
  readonly code = "gateway_closing" as const;
  constructor() {
    super({ name: "GatewayClosingError", message: "the gateway is shutting down" });
  }
  static override isInstance(error: unknown): error is GatewayClosingError {
    return hasMarker(error, gatewayClosingMarker);
  }
}
