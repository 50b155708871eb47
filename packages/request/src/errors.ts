import { CursorError } from "@cursor/run";

/** One offending path of a rejected input, e.g. `action.message.selectedContext[2].path`. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

function hasMarker(error: unknown, marker: symbol): boolean {
  return typeof error === "object" && error !== null && marker in error;
}

const requestValidationMarker = Symbol.for("cursor.error.request-validation");
/** Input handed to a compile function does not satisfy its schema; lists every offending path. */
export class RequestValidationError extends CursorError {
  readonly [requestValidationMarker] = true;
  readonly issues: readonly ValidationIssue[];
  constructor(options: { message: string; issues: readonly ValidationIssue[]; cause?: unknown }) {
    super({ name: "RequestValidationError", message: options.message, cause: options.cause });
    this.issues = options.issues;
  }
  static override isInstance(error: unknown): error is RequestValidationError {
    return hasMarker(error, requestValidationMarker);
  }
}

export type PromptAssetProblem =
  | "stray-brace"
  | "unknown-placeholder"
  | "missing-placeholder"
  | "duplicate-placeholder"
  | "missing-value"
  | "invalid-tool-catalog";

const promptAssetMarker = Symbol.for("cursor.error.prompt-asset");
/** A prompt file under prompt/cursor/ is malformed (or rendered without a value it needs). */
export class PromptAssetError extends CursorError {
  readonly [promptAssetMarker] = true;
  /** The offending file, relative to the repository root, e.g. `prompt/cursor/agent/runtime.md`. */
  readonly file: string;
  readonly problem: PromptAssetProblem;
  /** 1-based position of the problem in the file, when it has one. */
  readonly line: number | undefined;
  readonly column: number | undefined;
  constructor(options: {
    message: string;
    file: string;
    problem: PromptAssetProblem;
    line?: number;
    column?: number;
    cause?: unknown;
  }) {
    const position =
      options.line === undefined
        ? ""
        : `:${options.line}${options.column === undefined ? "" : `:${options.column}`}`;
    super({
      name: "PromptAssetError",
      message: `${options.file}${position}: ${options.message}`,
      cause: options.cause,
    });
    this.file = options.file;
    this.problem = options.problem;
    this.line = options.line;
    this.column = options.column;
  }
  static override isInstance(error: unknown): error is PromptAssetError {
    return hasMarker(error, promptAssetMarker);
  }
}

const toolNameCollisionMarker = Symbol.for("cursor.error.tool-name-collision");
/** Two tools of one prompt spec would be exposed to the model under the same name. */
export class ToolNameCollisionError extends CursorError {
  readonly [toolNameCollisionMarker] = true;
  readonly toolName: string;
  /** Where each colliding tool came from, e.g. `mcp server "db" tool "query"` or `fixed catalog`. */
  readonly sources: readonly string[];
  constructor(options: { toolName: string; sources: readonly string[]; cause?: unknown }) {
    super({
      name: "ToolNameCollisionError",
      message: `tool name ${options.toolName} is used by ${options.sources.join(" and ")}`,
      cause: options.cause,
    });
    this.toolName = options.toolName;
    this.sources = options.sources;
  }
  static override isInstance(error: unknown): error is ToolNameCollisionError {
    return hasMarker(error, toolNameCollisionMarker);
  }
}
