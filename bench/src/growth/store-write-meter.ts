import Database from "better-sqlite3";
import type { HeadVersion, StoredRun } from "@cursor/server";

/** What a measured write stored: where, the head after it, and the run it recorded (if any). */
export interface MeasuredWrite {
  readonly tenant: string;
  readonly conversationId: string;
  readonly next: HeadVersion;
  readonly run?: StoredRun;
}

const integerBytes = 8;

/**
 * Measures what a request's `SqliteStore` writes (`appendMessages`, then `recordRun`) add to the database, in payload bytes: the blob bytes
 * of messages the store did not hold yet, plus the column bytes of the message, turn and run
 * rows it inserts (TEXT/BLOB lengths, 8 per INTEGER). Page and index overhead are not counted:
 * the figure is what the commit has to persist, comparable across history lengths. Reads the
 * store's file through a read-only connection of its own.
 */
export class StoreWriteMeter {
  readonly #db: Database.Database;

  constructor(path: string) {
    this.#db = new Database(path, { readonly: true, fileMustExist: true });
  }

  /** Blob ids of `input` the store does not hold yet (call before the commit). */
  newBlobIds(input: { readonly digests: readonly string[] }): Set<string> {
    const exists = this.#db.prepare("SELECT 1 FROM blobs WHERE id = ?");
    return new Set(input.digests.filter((digest) => exists.get(digest) === undefined));
  }

  /** Payload bytes a finished commit of `input` added, given `newBlobIds` from before it. */
  bytesAdded({
    input,
    newBlobIds,
    firstSeq,
    firstTurnSeq,
  }: {
    input: MeasuredWrite;
    newBlobIds: ReadonlySet<string>;
    /** Seq of the first message row the commit inserted. */
    firstSeq: number;
    /** Seq of the first turn row the commit inserted. */
    firstTurnSeq: number;
  }): number {
    const blobLength = this.#db.prepare("SELECT length(bytes) AS n FROM blobs WHERE id = ?");
    let bytes = 0;
    for (const id of newBlobIds) {
      bytes += (blobLength.get(id) as { n: number } | undefined)?.n ?? 0;
    }
    const messageRows = this.#db
      .prepare(
        `SELECT COALESCE(SUM(length(tenant) + length(conversation_id) + length(message_id) + length(blob_id)), 0) AS n,
                COUNT(*) AS rows
         FROM messages WHERE tenant = ? AND conversation_id = ? AND epoch = ? AND seq >= ?`,
      )
      .get(input.tenant, input.conversationId, input.next.epoch, firstSeq) as {
      n: number;
      rows: number;
    };
    bytes += messageRows.n + messageRows.rows * 2 * integerBytes;
    const turnRows = this.#db
      .prepare(
        `SELECT COALESCE(SUM(length(tenant) + length(conversation_id) + length(event_id) + length(record)), 0) AS n,
                COUNT(*) AS rows
         FROM turns WHERE tenant = ? AND conversation_id = ? AND seq >= ?`,
      )
      .get(input.tenant, input.conversationId, firstTurnSeq) as { n: number; rows: number };
    bytes += turnRows.n + turnRows.rows * integerBytes;
    if (input.run !== undefined) {
      const run = this.#db
        .prepare(
          `SELECT length(tenant) + length(conversation_id) + length(run_id) + length(status)
                  + COALESCE(length(error), 0) + COALESCE(length(final_text), 0) AS n
           FROM runs WHERE tenant = ? AND conversation_id = ? AND run_id = ?`,
        )
        .get(input.tenant, input.conversationId, input.run.runId) as { n: number } | undefined;
      bytes += (run?.n ?? 0) + 2 * integerBytes;
    }
    return bytes;
  }

  /** Turn rows stored so far (the next turn row's seq). */
  turnCount(tenant: string, conversationId: string): number {
    return (
      this.#db
        .prepare("SELECT COUNT(*) AS n FROM turns WHERE tenant = ? AND conversation_id = ?")
        .get(tenant, conversationId) as { n: number }
    ).n;
  }

  close(): void {
    this.#db.close();
  }
}
