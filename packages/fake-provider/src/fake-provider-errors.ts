import { CursorError } from "@cursor/run";

const cacheMarkerLimitMarker = Symbol.for("cursor.error.fake-provider.cache-marker-limit");
/** An Anthropic request carried more `cache_control` markers than the API allows (a 400). */
export class CacheMarkerLimitError extends CursorError {
  readonly [cacheMarkerLimitMarker] = true;
  readonly markers: number;
  readonly limit: number;
  constructor(options: { message: string; markers: number; limit: number; cause?: unknown }) {
    super({ name: "CacheMarkerLimitError", message: options.message, cause: options.cause });
    this.markers = options.markers;
    this.limit = options.limit;
  }
  static override isInstance(error: unknown): error is CacheMarkerLimitError {
    return typeof error === "object" && error !== null && cacheMarkerLimitMarker in error;
  }
}

const invalidFakeReplyMarker = Symbol.for("cursor.error.fake-provider.invalid-fake-reply");
/** A scripted reply handed to the fake provider does not match the `FakeReply` schema. */
export class InvalidFakeReplyError extends CursorError {
  readonly [invalidFakeReplyMarker] = true;
  readonly issues: readonly string[];
  constructor(options: { message: string; issues: readonly string[]; cause?: unknown }) {
    super({ name: "InvalidFakeReplyError", message: options.message, cause: options.cause });
    this.issues = options.issues;
  }
  static override isInstance(error: unknown): error is InvalidFakeReplyError {
    return typeof error === "object" && error !== null && invalidFakeReplyMarker in error;
  }
}
