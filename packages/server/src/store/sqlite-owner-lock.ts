import Database from "better-sqlite3";

/** What `lockSqliteOwner` holds: released by `release` (or by the process ending, however). */
export interface SqliteOwnerLock {
  release(): void;
}

/** The lock, or why it was not taken (a lock file SQLite cannot use is thrown, not returned). */
export type SqliteOwnerLockResult =
  | { readonly held: true; readonly lock: SqliteOwnerLock }
  | { readonly held: false; readonly reason: "in-use" };

/**
 * Makes this process the one owner of an embedded SQLite store: a lock file beside it
 * (`<store>.lock`), itself a tiny SQLite database held in exclusive locking mode. The store
 * relies on having one process (its run slots are kept in that process; locks a dead process
 * left are cleared on start), so a second gateway on the same data folder is refused instead
 * of serving the same conversations beside the first.
 *
 * Why SQLite: its file locks are the operating system's, released when the process ends, even
 * on `kill -9`, so nothing stale is ever left to clean up (no process ids, no timestamps); and
 * they work the same between connections of one process. `waitMs` covers a restart where the
 * previous process is still exiting.
 */
export function lockSqliteOwner({
  path,
  waitMs,
}: {
  path: string;
  waitMs: number;
}): SqliteOwnerLockResult {
  const db = new Database(`${path}.lock`, { timeout: waitMs });
  try {
    // The lock is taken by the first write and kept until the connection closes.
    db.pragma("locking_mode = EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL); DELETE FROM owner;");
    db.prepare("INSERT INTO owner (pid) VALUES (?)").run(process.pid);
  } catch (error) {
    db.close();
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") {
      return { held: false, reason: "in-use" };
    }
    throw error;
  }
  return {
    held: true,
    lock: {
      release: () => {
        if (db.open) db.close();
      },
    },
  };
}
