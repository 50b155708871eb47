import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe } from "vitest";
import {
  createTestDatabase,
  dumpPostgres,
  postgresSkipReason,
  postgresTestURL,
} from "../store/postgres-test-database.js";
import type { TestDatabase } from "../store/postgres-test-database.js";
import { testCheckpointSecret } from "./e2e-environment.js";
import { openSqliteDump } from "./sqlite-dump.js";

/** The stores the end-to-end suites run on: the embedded default and the shared database. */
export type StoreKind = "sqlite" | "postgresql";

export interface StoreTarget {
  readonly kind: StoreKind;
  /** Why this store cannot run here (its suites are skipped, their titles say why). */
  readonly skip?: string;
}

export const storeTargets: readonly StoreTarget[] = [
  { kind: "sqlite" },
  {
    kind: "postgresql",
    ...(postgresTestURL === undefined ? { skip: postgresSkipReason } : {}),
  },
];

/**
 * Declares `suite` once per store: `title [sqlite]` and `title [postgresql]` (skipped, with the
 * reason in its title, when no PostgreSQL server is configured).
 */
export function describeEachStore(title: string, suite: (target: StoreTarget) => void): void {
  for (const target of storeTargets) {
    const label =
      target.skip === undefined ? target.kind : `${target.kind}, skipped: ${target.skip}`;
    describe.skipIf(target.skip !== undefined)(`${title} [${label}]`, () => suite(target));
  }
}

/**
 * One gateway deployment's store: SQLite in its data folder, or a fresh PostgreSQL database.
 * Gateways started with `environment` (on top of the data folder's) use it; several processes
 * started with the same environment share it (PostgreSQL).
 */
export interface E2eStore {
  readonly kind: StoreKind;
  readonly dataDir: string;
  /** Variables that point a gateway at this store (and the secret its processes share). */
  readonly environment: Record<string, string>;
  /** Every row of every table as text: two equal dumps mean byte-identical content. */
  dump(): Promise<string>;
  /** Whether `text` appears anywhere in what is stored (files, rows, blobs). */
  contains(text: string): Promise<boolean>;
}

/** The stores of one test file, dropped by `dropAll` (afterAll). */
export function e2eStores() {
  const databases: TestDatabase[] = [];
  return {
    async create({ kind, dataDir }: { kind: StoreKind; dataDir: string }): Promise<E2eStore> {
      if (kind === "sqlite") {
        const path = join(dataDir, "gateway.sqlite");
        return {
          kind,
          dataDir,
          environment: {},
          async dump() {
            const reader = openSqliteDump(path);
            try {
              return reader.dump();
            } finally {
              reader.close();
            }
          },
          // The database, its write-ahead log and anything else in the folder.
          contains: async (text) => folderContains(dataDir, text),
        };
      }
      const database = await createTestDatabase();
      databases.push(database);
      return {
        kind,
        dataDir,
        environment: {
          CURSOR_GATEWAY_DATABASE_URL: database.url,
          CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret,
        },
        dump: () => dumpPostgres(database.url),
        async contains(text) {
          // Blobs (bytea) dump as hex: look for both spellings; and in the data folder.
          const dump = await dumpPostgres(database.url);
          return (
            dump.includes(text) ||
            dump.includes(Buffer.from(text).toString("hex")) ||
            folderContains(dataDir, text)
          );
        },
      };
    },
    async dropAll(): Promise<void> {
      for (const database of databases.splice(0)) await database.drop();
    },
  };
}

function folderContains(folder: string, text: string): boolean {
  return readdirSync(folder).some((file) => readFileSync(join(folder, file)).includes(text));
}
