import { randomBytes } from "node:crypto";
import { Client } from "pg";

/**
 * The PostgreSQL server the tests run against: `CURSOR_GATEWAY_TEST_DATABASE_URL`, a URL of a
 * role that may create databases (`scripts/start-test-postgres.sh` starts a throwaway cluster
 * and prints it). Every test store gets a database of its own, dropped afterwards.
 *
 * Without the variable the PostgreSQL tests are skipped and say why; in CI (`CI=true`) its
 * absence is an error, so CI never passes without running them.
 */
export const postgresTestURL: string | undefined =
  process.env.CURSOR_GATEWAY_TEST_DATABASE_URL?.trim() || undefined;

export const postgresSkipReason =
  'CURSOR_GATEWAY_TEST_DATABASE_URL is not set; run `eval "$(scripts/start-test-postgres.sh)"` to start a throwaway PostgreSQL cluster';

if (postgresTestURL === undefined) {
  if (process.env.CI === "true") {
    throw new Error(
      `CI must run the PostgreSQL tests: ${postgresSkipReason} (.ci/run does this before pnpm test)`,
    );
  }
  console.warn(`PostgreSQL tests skipped: ${postgresSkipReason}`);
}

/** `suffix` appended to a describe title: empty when PostgreSQL runs, else the skip reason. */
export const postgresTitleSuffix =
  postgresTestURL === undefined ? ` [skipped: ${postgresSkipReason}]` : "";

export interface TestDatabase {
  /** A URL of the new, empty database (same server and role as the test URL). */
  readonly url: string;
  /** Drops the database (ending any session still connected to it). */
  drop(): Promise<void>;
}

function adminURL(): string {
  if (postgresTestURL === undefined) throw new Error(postgresSkipReason);
  return postgresTestURL;
}

async function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminURL() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `cgw_test_${process.pid}_${randomBytes(5).toString("hex")}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminURL());
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Runs `work` with a plain client of the database at `url` (tests: raw reads and writes). */
export async function withDatabase<T>(
  url: string,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Every row of every table of the database's schema, in a stable order, as PostgreSQL's own
 * text form of the row (bytea as hex, timestamps to the microsecond): two equal dumps mean the
 * store's content is byte-identical.
 */
export async function dumpPostgres(url: string): Promise<string> {
  return withDatabase(url, async (client) => {
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const lines: string[] = [];
    for (const { table_name: table } of tables.rows) {
      const rows = await client.query<{ row: string }>(
        `SELECT t::text AS row FROM "${table}" t ORDER BY t::text COLLATE "C"`,
      );
      lines.push(`# ${table} (${rows.rows.length} rows)`);
      for (const { row } of rows.rows) lines.push(row);
    }
    return lines.join("\n");
  });
}
