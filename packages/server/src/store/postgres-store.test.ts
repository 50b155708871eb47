import { HistoryLog, canonicalJson, createRuntimeMessage, messageDigest } from "@cursor/run";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HeadVersion } from "./gateway-store.js";
import { migrations } from "./migrations.js";
import { postgresMigrations } from "./postgres-migrations.js";
import { PostgresStore, advisoryNamespace } from "./postgres-store.js";
import {
  createTestDatabase,
  dumpPostgres,
  postgresSkipReason,
  postgresTestURL,
  postgresTitleSuffix,
  withDatabase,
} from "./postgres-test-database.js";
import type { TestDatabase } from "./postgres-test-database.js";
import { describeStoreContract } from "./store-contract.js";
import type { StoreFixture } from "./store-contract.js";
import { StoreError } from "./store-error.js";

describeStoreContract({
  name: "PostgreSQL",
  ...(postgresTestURL === undefined ? { skip: postgresSkipReason } : {}),
  async create(): Promise<StoreFixture> {
    const database = await createTestDatabase();
    const opened = [await PostgresStore.open({ url: database.url })];
    return {
      store: opened[0]!,
      async open() {
        const other = await PostgresStore.open({ url: database.url });
        opened.push(other);
        return other;
      },
      async tamperBlobs(bytes) {
        await withDatabase(database.url, (client) =>
          client.query("UPDATE blobs SET bytes = $1", [bytes]),
        );
      },
      async tamperBlob({ id, bytes }) {
        await withDatabase(database.url, (client) =>
          client.query("UPDATE blobs SET bytes = $1 WHERE id = $2", [bytes, id]),
        );
      },
      async tamperChunks({ seq, bytes }) {
        await withDatabase(database.url, (client) =>
          bytes === undefined
            ? client.query("DELETE FROM blob_chunks WHERE seq = $1", [seq])
            : client.query("UPDATE blob_chunks SET bytes = $1 WHERE seq = $2", [bytes, seq]),
        );
      },
      async blobRows() {
        return withDatabase(database.url, async (client) => {
          const result = await client.query<{
            id: string;
            size: number;
            chunkCount: number;
            inline: boolean;
          }>(
            `SELECT id, size, chunk_count AS "chunkCount", bytes IS NOT NULL AS inline
             FROM blobs ORDER BY id COLLATE "C"`,
          );
          return result.rows;
        });
      },
      async breakStore() {
        await withDatabase(database.url, (client) => client.query("DROP TABLE turns"));
      },
      async rowCount(table) {
        return withDatabase(database.url, async (client) => {
          const result = await client.query<{ count: string }>(
            `SELECT COUNT(*) AS count FROM ${table}`,
          );
          return Number(result.rows[0]!.count);
        });
      },
      dump: () => dumpPostgres(database.url),
      async dispose() {
        for (const store of opened) await store.close();
        await database.drop();
      },
    };
  },
});

const conversation = { tenant: "t", conversationId: "c" } as const;
const latestVersion = Math.max(...postgresMigrations.map((m) => m.version));
const runtime = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `q${n}` }],
  });

async function appendTurn(store: PostgresStore, log: HistoryLog, expected: HeadVersion | null) {
  const checked = log.check([runtime(log.length + 1)]);
  await store.appendMessages({
    ...conversation,
    expected,
    messages: checked.appended,
    digests: checked.digests,
    next: { epoch: log.epoch, headDigest: checked.headDigest, messageCount: checked.length },
  });
  log.append(checked.appended);
}

const version = (log: HistoryLog): HeadVersion => ({
  epoch: log.epoch,
  headDigest: log.headDigest,
  messageCount: log.length,
});

describe.skipIf(postgresTestURL === undefined)(`PostgresStore${postgresTitleSuffix}`, () => {
  let database: TestDatabase;
  const opened: PostgresStore[] = [];
  const open = async () => {
    const store = await PostgresStore.open({ url: database.url });
    opened.push(store);
    return store;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await database.drop();
  });

  it("keeps the same schema versions as the SQLite store", () => {
    expect(
      postgresMigrations.map(({ version, description }) => ({ version, description })),
    ).toEqual(migrations.map(({ version, description }) => ({ version, description })));
  });

  it("applies the migrations once when several processes start together", async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => open()));
    expect(await stores[0]!.schemaVersion()).toBe(latestVersion);
    const applied = await withDatabase(database.url, (client) =>
      client.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version"),
    );
    expect(applied.rows.map((row) => row.version)).toEqual(
      postgresMigrations.map((m) => m.version),
    );
    // Each process has a liveness key of its own.
    expect(new Set(stores.map((store) => store.holder)).size).toBe(4);
  });

  it("upgrades a database of an older gateway and keeps its rows", async () => {
    await withDatabase(database.url, async (client) => {
      await client.query(
        "CREATE TABLE schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      for (const migration of postgresMigrations.filter((m) => m.version <= 2)) {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, description) VALUES ($1, $2)", [
          migration.version,
          migration.description,
        ]);
      }
      await client.query(
        "INSERT INTO runs (tenant, conversation_id, run_id, status, started_at) VALUES ('t', 'c', 'r0', 'completed', now())",
      );
    });
    const store = await open();
    expect(await store.schemaVersion()).toBe(latestVersion);
    expect(await store.getRun({ ...conversation, runId: "r0" })).toEqual({
      runId: "r0",
      status: "completed",
    });
  });

  it("moves the large blobs of a schema 3 database into 1 MiB chunks (migration 4)", async () => {
    const big = createRuntimeMessage({
      eventId: "turn.big.0",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "x".repeat(3 * 1024 * 1024 + 17) }],
    });
    const messages = [runtime(1), big, runtime(2)];
    const log = new HistoryLog({ messages });
    await withDatabase(database.url, async (client) => {
      await client.query(
        "CREATE TABLE schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      for (const migration of postgresMigrations.filter((m) => m.version <= 3)) {
        await client.query(migration.sql);
        await client.query("INSERT INTO schema_migrations (version, description) VALUES ($1, $2)", [
          migration.version,
          migration.description,
        ]);
      }
      // The rows a schema 3 gateway wrote: every blob whole in its row.
      for (const [seq, message] of messages.entries()) {
        const digest = messageDigest(message);
        await client.query("INSERT INTO blobs (id, bytes) VALUES ($1, $2)", [
          digest,
          Buffer.from(canonicalJson(message)),
        ]);
        await client.query(
          "INSERT INTO messages (tenant, conversation_id, epoch, seq, message_id, blob_id) VALUES ('t', 'c', 0, $1, $2, $3)",
          [seq, message.id, digest],
        );
      }
      await client.query(
        "INSERT INTO conversations (tenant, conversation_id, epoch, message_count, head_digest) VALUES ('t', 'c', 0, 3, $1)",
        [log.headDigest],
      );
    });
    const store = await open();
    expect(await store.schemaVersion()).toBe(latestVersion);
    expect((await store.load("t", "c"))?.messages).toEqual(messages);
    const layout = await withDatabase(database.url, async (client) => ({
      blobs: (
        await client.query<{ id: string; size: number; chunk_count: number; inline: boolean }>(
          "SELECT id, size, chunk_count, bytes IS NOT NULL AS inline FROM blobs WHERE id = $1",
          [messageDigest(big)],
        )
      ).rows,
      chunks: (
        await client.query<{ seq: number; size: number }>(
          "SELECT seq, length(bytes) AS size FROM blob_chunks ORDER BY seq",
        )
      ).rows,
    }));
    const size = canonicalJson(big).length;
    expect(layout.blobs).toEqual([{ id: messageDigest(big), size, chunk_count: 4, inline: false }]);
    expect(layout.chunks).toEqual([
      { seq: 0, size: 1024 * 1024 },
      { seq: 1, size: 1024 * 1024 },
      { seq: 2, size: 1024 * 1024 },
      { seq: 3, size: size - 3 * 1024 * 1024 },
    ]);
    await appendTurn(store, log, version(log));
    expect((await store.load("t", "c"))?.messages).toHaveLength(4);
  });

  it("refuses a database newer than this gateway, and changes nothing in it", async () => {
    await open();
    await withDatabase(database.url, (client) =>
      client.query(
        "INSERT INTO schema_migrations (version, description) VALUES (99, 'from the future')",
      ),
    );
    const before = await dumpPostgres(database.url);
    const refusal = await PostgresStore.open({ url: database.url }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(StoreError.isInstance(refusal) && refusal.reason).toBe("migration");
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `schema version 99, newer than this gateway knows \\(${latestVersion}\\); upgrade the gateway`,
      ),
    );
    expect(await dumpPostgres(database.url)).toBe(before);
  });

  it("says which server it cannot reach, never the password", async () => {
    const url = new URL(database.url);
    const password = decodeURIComponent(url.password);
    url.port = "1"; // nothing listens there
    const unreachable = await PostgresStore.open({ url: url.toString() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(StoreError.isInstance(unreachable) && unreachable.reason).toBe("unavailable");
    expect((unreachable as Error).message).toMatch(
      /cannot connect to PostgreSQL at postgresql:\/\//,
    );
    const wrongPassword = new URL(database.url);
    wrongPassword.password = "not-the-password-0123";
    const refused = await PostgresStore.open({ url: wrongPassword.toString() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(StoreError.isInstance(refused) && refused.reason).toBe("unavailable");
    for (const error of [unreachable, refused]) {
      const text = `${(error as Error).message} ${(error as Error).stack}`;
      if (password !== "") expect(text).not.toContain(password);
      expect(text).not.toContain("not-the-password-0123");
    }
  });

  it("hands a dead process's run slot over at once: its liveness session is gone", async () => {
    const a = await open();
    const b = await open();
    const lease = { ...conversation, runId: "r1", leaseMs: 600_000 };
    expect(await a.acquireRun(lease)).toBe(true);
    expect(await b.acquireRun({ ...lease, runId: "r2" })).toBe(false);
    // The server ends every session of A (what happens to a killed process's connections).
    await withDatabase(database.url, (client) =>
      client.query(
        "SELECT pg_terminate_backend(l.pid) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objid = $2::oid",
        [advisoryNamespace, a.holder],
      ),
    );
    expect(await b.acquireRun({ ...lease, runId: "r2" })).toBe(true);
    expect(await a.renewRun(lease)).toBe(false);
  });

  it("restores its liveness session when the server drops it, and holds its leases again", async () => {
    const a = await open();
    const b = await open();
    expect(await a.acquireRun({ ...conversation, runId: "r1", leaseMs: 600_000 })).toBe(true);
    const livenessSessions = () =>
      withDatabase(database.url, async (client) => {
        const result = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid",
          [advisoryNamespace, a.holder],
        );
        return result.rows.map((row) => row.pid);
      });
    const [first] = await livenessSessions();
    // Only the liveness session goes (a database restart, a cut connection); A lives on.
    await withDatabase(database.url, (client) =>
      client.query("SELECT pg_terminate_backend($1)", [first]),
    );
    const deadline = Date.now() + 10_000;
    let restored: number[] = [];
    while (Date.now() < deadline) {
      restored = await livenessSessions();
      if (restored.length === 1 && restored[0] !== first) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(restored).toHaveLength(1);
    expect(restored[0]).not.toBe(first);
    // A is alive again under the same key: its lease holds.
    expect(await b.acquireRun({ ...conversation, runId: "r2", leaseMs: 600_000 })).toBe(false);
    expect(await a.renewRun({ ...conversation, runId: "r1", leaseMs: 600_000 })).toBe(true);
  });

  it("fences the writes of a process whose lease another took over", async () => {
    const a = await open();
    const b = await open();
    const log = new HistoryLog();
    await appendTurn(a, log, null);
    // A's run holds the slot, freezes past its lease; B takes the conversation over.
    expect(await a.acquireRun({ ...conversation, runId: "r1", leaseMs: 100 })).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await b.acquireRun({ ...conversation, runId: "r1", leaseMs: 60_000 })).toBe(true);
    const before = await dumpPostgres(database.url);
    // A wakes up: its write from the head it still has is refused, nothing changes.
    const stale = new HistoryLog({ messages: log.messages });
    await expect(appendTurn(a, stale, version(log))).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "head-moved",
    );
    await expect(
      a.recordRun({
        ...conversation,
        expected: version(log),
        run: { runId: "r1", status: "completed" },
      }),
    ).rejects.toSatisfy((error) => StoreError.isInstance(error) && error.reason === "head-moved");
    // Its release leaves B's lease alone (the same run id, another holder).
    await a.releaseRun({ ...conversation, runId: "r1" });
    expect(await dumpPostgres(database.url)).toBe(before);
    // B writes.
    await appendTurn(b, log, version(log));
    expect((await a.load("t", "c"))?.messages).toEqual(log.messages);
  });

  it("gives up its slots when it closes (graceful stop): another process takes them at once", async () => {
    const a = await open();
    const b = await open();
    expect(await a.acquireRun({ ...conversation, runId: "r1", leaseMs: 600_000 })).toBe(true);
    await a.close();
    expect(await b.acquireRun({ ...conversation, runId: "r2", leaseMs: 600_000 })).toBe(true);
  });
});
