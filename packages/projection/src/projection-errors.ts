import { CursorError } from "@cursor/run";

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

const projectionConflictMarker = Symbol.for("cursor.error.projection-conflict");

/**
 * A request that does not fit the conversation's head. Every subclass is one kind of conflict;
 * the gateway answers all of them with `409 conflict` through this one `isInstance` check.
 */
export class ProjectionConflictError extends CursorError {
  readonly [projectionConflictMarker] = true;
  readonly conversationId: string;
  constructor(options: { name: string; message: string; conversationId: string; cause?: unknown }) {
    super(options);
    this.conversationId = options.conversationId;
  }
  static override isInstance(error: unknown): error is ProjectionConflictError {
    return hasMarker(error, projectionConflictMarker);
  }
}

const conversationMismatchMarker = Symbol.for("cursor.error.conversation-mismatch");

/** The request (or the checkpoint it carries) belongs to another conversation than the head. */
export class ConversationMismatchError extends ProjectionConflictError {
  readonly [conversationMismatchMarker] = true;
  readonly requestConversationId: string;
  constructor(options: {
    message: string;
    conversationId: string;
    requestConversationId: string;
    cause?: unknown;
  }) {
    super({ name: "ConversationMismatchError", ...options });
    this.requestConversationId = options.requestConversationId;
  }
  static override isInstance(error: unknown): error is ConversationMismatchError {
    return hasMarker(error, conversationMismatchMarker);
  }
}

const runIdMismatchMarker = Symbol.for("cursor.error.run-id-mismatch");

/** `inject-context` named an `expectedRunId` that is not the conversation's latest run. */
export class RunIdMismatchError extends ProjectionConflictError {
  readonly [runIdMismatchMarker] = true;
  readonly expectedRunId: string;
  readonly lastRunId: string | undefined;
  constructor(options: {
    message: string;
    conversationId: string;
    expectedRunId: string;
    lastRunId: string | undefined;
    cause?: unknown;
  }) {
    super({ name: "RunIdMismatchError", ...options });
    this.expectedRunId = options.expectedRunId;
    this.lastRunId = options.lastRunId;
  }
  static override isInstance(error: unknown): error is RunIdMismatchError {
    return hasMarker(error, runIdMismatchMarker);
  }
}

const toolResultConflictMarker = Symbol.for("cursor.error.tool-result-conflict");

/**
 * `tool-results` answered calls the run is not waiting for (`unknownCallIds`), or re-sent a
 * result for an answered call with different content (`changedCallIds`).
 */
export class ToolResultConflictError extends ProjectionConflictError {
  readonly [toolResultConflictMarker] = true;
  readonly runId: string;
  readonly unknownCallIds: readonly string[];
  readonly changedCallIds: readonly string[];
  constructor(options: {
    message: string;
    conversationId: string;
    runId: string;
    unknownCallIds: readonly string[];
    changedCallIds: readonly string[];
    cause?: unknown;
  }) {
    super({ name: "ToolResultConflictError", ...options });
    this.runId = options.runId;
    this.unknownCallIds = options.unknownCallIds;
    this.changedCallIds = options.changedCallIds;
  }
  static override isInstance(error: unknown): error is ToolResultConflictError {
    return hasMarker(error, toolResultConflictMarker);
  }
}

const runIdReusedMarker = Symbol.for("cursor.error.run-id-reused");

/**
 * A user message arrived under a run id that already delivered another event (another message,
 * or the same message with other content). A run id and a message id together identify a
 * retry; answering it would replay the other event's run.
 */
export class RunIdReusedError extends ProjectionConflictError {
  readonly [runIdReusedMarker] = true;
  readonly runId: string;
  /** The client id of the event the run id delivered first. */
  readonly deliveredClientMessageId: string;
  constructor(options: {
    message: string;
    conversationId: string;
    runId: string;
    deliveredClientMessageId: string;
    cause?: unknown;
  }) {
    super({ name: "RunIdReusedError", ...options });
    this.runId = options.runId;
    this.deliveredClientMessageId = options.deliveredClientMessageId;
  }
  static override isInstance(error: unknown): error is RunIdReusedError {
    return hasMarker(error, runIdReusedMarker);
  }
}
