import { CursorError } from "@cursor/run";

const storeErrorMarker = Symbol.for("cursor.error.store");

/**
 * - `head-moved`: the conversation changed since the writer loaded it (optimistic concurrency);
 * - `corrupt`: stored data failed verification (a blob, a message count, the head digest);
 * - `invalid-write`: a write that cannot be right (digests missing, an epoch that does not follow);
 * - `migration`: the database schema is newer than this gateway, or a migration failed;
 * - `unavailable`: the database cannot serve (PostgreSQL: unreachable, auth failed; SQLite:
 *   unreadable, not writable).
 */
export type StoreErrorReason =
  "head-moved" | "corrupt" | "invalid-write" | "migration" | "unavailable";

/** A store operation was refused or stored data failed verification; nothing was written. */
export class StoreError extends CursorError {
  readonly [storeErrorMarker] = true;
  readonly reason: StoreErrorReason;
  constructor({
    reason,
    message,
    cause,
  }: {
    reason: StoreErrorReason;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "StoreError", message, cause });
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is StoreError {
    return typeof error === "object" && error !== null && storeErrorMarker in error;
  }
}
