import { join, resolve } from "node:path";
import { StartupError } from "../startup-error.js";
import type { GatewayStore } from "./gateway-store.js";
import { PostgresStore } from "./postgres-store.js";
import type { PostgresStoreLogger } from "./postgres-store.js";
import { lockSqliteOwner } from "./sqlite-owner-lock.js";
import { SqliteStore } from "./sqlite-store.js";

/** How long a starting gateway waits for a previous one on its data folder to exit. */
const ownerLockWaitMs = 2_000;

/**
 * The store a gateway process runs on: PostgreSQL when a database URL is configured (several
 * processes share it), else the embedded SQLite file in the data folder (one process).
 */
export async function openGatewayStore({
  dataDir,
  databaseURL,
  runLeaseMs,
  logger,
}: {
  dataDir: string;
  databaseURL?: string;
  runLeaseMs: number;
  logger?: PostgresStoreLogger;
}): Promise<GatewayStore> {
  if (databaseURL !== undefined) {
    return PostgresStore.open({
      url: databaseURL,
      // A transaction of a frozen process holds its conversation no longer than a lease.
      idleTransactionTimeoutMs: runLeaseMs,
      ...(logger === undefined ? {} : { logger }),
    });
  }
  const path = join(dataDir, "gateway.sqlite");
  // Before the file is opened (and migrated): one process owns the embedded store.
  const owner = lockSqliteOwner({ path, waitMs: ownerLockWaitMs });
  if (!owner.held) {
    throw new StartupError({
      reason: "data-dir-in-use",
      message: `the data folder ${resolve(dataDir)} is in use by another gateway process (its SQLite store serves one process); stop that process or set CURSOR_GATEWAY_DATA_DIR to another folder (several processes share a PostgreSQL store: CURSOR_GATEWAY_DATABASE_URL)`,
    });
  }
  let store: SqliteStore;
  try {
    store = new SqliteStore({ path, ownerLock: owner.lock });
  } catch (error) {
    owner.lock.release();
    throw error;
  }
  // This process owns the store and keeps its run slots in memory: a `run_locks` row an
  // earlier gateway version left behind is nobody's.
  await store.clearRunLocks();
  return store;
}
