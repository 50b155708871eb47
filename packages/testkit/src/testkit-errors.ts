import { CursorError } from "@cursor/run";

const conformanceViolationMarker = Symbol.for("cursor.error.testkit.conformance-violation");
/** A provider adapter broke one of the conformance laws; `path` is the first diverging path. */
export class ConformanceViolationError extends CursorError {
  readonly [conformanceViolationMarker] = true;
  readonly law: string;
  readonly path: string | undefined;
  constructor(options: { message: string; law: string; path?: string; cause?: unknown }) {
    super({ name: "ConformanceViolationError", message: options.message, cause: options.cause });
    this.law = options.law;
    this.path = options.path;
  }
  static override isInstance(error: unknown): error is ConformanceViolationError {
    return typeof error === "object" && error !== null && conformanceViolationMarker in error;
  }
}
