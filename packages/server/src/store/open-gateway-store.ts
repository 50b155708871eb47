import { join } from "node:path";
import type { GatewayStore } from "./gateway-store.js";
import { PostgresStore } from "./postgres-store.js";
import type { PostgresStoreLogger } from "./postgres-store.js";
import { SqliteStore } from "./sqlite-store.js";

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
  const store = new SqliteStore({ path: join(dataDir, "gateway.sqlite") });
  // The embedded store serves this process alone: a lease left by a killed one is nobody's.
  await store.clearRunLocks();
  return store;
}
