import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  HistoryLog,
  canonicalJson,
  createAssistantMessage,
  createRuntimeMessage,
  messageDigest,
} from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteDump } from "../e2e/sqlite-dump.js";
import type { HeadVersion } from "./gateway-store.js";
import { migrations } from "./migrations.js";
import { SqliteStore } from "./sqlite-store.js";
import { StoreError } from "./store-error.js";
import { describeStoreContract, imageMessage } from "./store-contract.js";
import type { StoreFixture } from "./store-contract.js";

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "store-test-"));
  store = new SqliteStore({ path: join(dir, "gateway.sqlite"), now: () => 1_000 });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const conversation = { tenant: "t", conversationId: "c" } as const;
const latestVersion = Math.max(...migrations.map((m) => m.version));
const runtime = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `q${n}` }],
  });
const answer = (n: number) => createAssistantMessage({ runId: `r${n}`, step: 0, text: `a${n}` });
function version(log: HistoryLog): HeadVersion {
  return { epoch: log.epoch, headDigest: log.headDigest, messageCount: log.length };
}

/** Appends `messages` as the gateway does: the log's check gives the digests and the next head. */
async function appendTurn(
  log: HistoryLog,
  messages: CanonicalMessage[],
  expected: HeadVersion | null,
  extra: { lastRunId?: string } = {},
) {
  const checked = log.check(messages);
  await store.appendMessages({
    ...conversation,
    expected,
    messages: checked.appended,
    digests: checked.digests,
    next: { epoch: log.epoch, headDigest: checked.headDigest, messageCount: checked.length },
    ...extra,
  });
  log.append(checked.appended);
}

describeStoreContract({
  name: "SQLite",
  async create(): Promise<StoreFixture> {
    const folder = mkdtempSync(join(tmpdir(), "store-contract-"));
    const path = join(folder, "gateway.sqlite");
    const opened = [new SqliteStore({ path })];
    const raw = () => new Database(path);
    return {
      store: opened[0]!,
      async open() {
        const other = new SqliteStore({ path });
        opened.push(other);
        return other;
      },
      async tamperBlobs(bytes) {
        const db = raw();
        db.prepare("UPDATE blobs SET bytes = ?").run(bytes);
        db.close();
      },
      async tamperBlob({ id, bytes }) {
        const db = raw();
        db.prepare("UPDATE blobs SET bytes = ? WHERE id = ?").run(bytes, id);
        db.close();
      },
      async tamperChunks({ seq, bytes }) {
        const db = raw();
        if (bytes === undefined) db.prepare("DELETE FROM blob_chunks WHERE seq = ?").run(seq);
        else db.prepare("UPDATE blob_chunks SET bytes = ? WHERE seq = ?").run(bytes, seq);
        db.close();
      },
      async blobRows() {
        const db = raw();
        const rows = db
          .prepare(
            "SELECT id, size, chunk_count AS chunkCount, bytes IS NOT NULL AS inline FROM blobs ORDER BY id",
          )
          .all() as { id: string; size: number; chunkCount: number; inline: number }[];
        db.close();
        return rows.map((row) => ({ ...row, inline: row.inline === 1 }));
      },
      async breakStore() {
        const db = raw();
        db.exec("DROP TABLE turns");
        db.close();
      },
      async rowCount(table) {
        const db = raw();
        const { count } = db.prepare(`SELECT COUNT(*) AS count FROM ${table}`).get() as {
          count: number;
        };
        db.close();
        return count;
      },
      async dump() {
        const dump = openSqliteDump(path);
        try {
          return dump.dump();
        } finally {
          dump.close();
        }
      },
      async dispose() {
        for (const store of opened) await store.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  },
});

describe("SqliteStore", () => {
  it("applies migrations once and records the schema version", async () => {
    expect(store.schemaVersion).toBe(latestVersion);
    await store.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite") });
    expect(store.schemaVersion).toBe(latestVersion);
  });

  it("upgrades a database of an older gateway (schema 2) and refuses one newer than it knows", async () => {
    await store.close();
    rmSync(join(dir, "gateway.sqlite"), { force: true });
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.exec(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    for (const migration of migrations.filter((m) => m.version <= 2)) {
      raw.exec(migration.sql);
      raw
        .prepare("INSERT INTO schema_migrations VALUES (?, ?, ?)")
        .run(migration.version, migration.description, 1);
    }
    raw.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite") });
    expect(store.schemaVersion).toBe(latestVersion);
    await store.recordClientBlobs({ tenant: "t", conversationId: "c", blobIds: ["ab"] });
    await store.close();
    const newer = new Database(join(dir, "gateway.sqlite"));
    newer.prepare("INSERT INTO schema_migrations VALUES (99, 'from the future', 1)").run();
    newer.close();
    expect(() => new SqliteStore({ path: join(dir, "gateway.sqlite") })).toThrow(
      new RegExp(`schema version 99 is newer than this gateway knows \\(${latestVersion}\\)`),
    );
    store = new SqliteStore({ path: ":memory:" });
  });

  it("opens a data folder written by the previous gateway (same schema, same rows)", async () => {
    await store.close();
    rmSync(join(dir, "gateway.sqlite"), { force: true });
    // The rows the previous `commit` wrote, by hand: blobs of canonical JSON under their digest.
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.exec(
      "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    // The schema as the previous gateway left it (version 2: blobs in a WITHOUT ROWID table).
    for (const migration of migrations.filter((m) => m.version <= 2)) {
      raw.exec(migration.sql);
      raw
        .prepare("INSERT INTO schema_migrations VALUES (?, ?, ?)")
        .run(migration.version, migration.description, 1);
    }
    // One message larger than a chunk: the migration moves it into pieces.
    const big = createRuntimeMessage({
      eventId: "turn.big.0",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "x".repeat(3 * 1024 * 1024 + 17) }],
    });
    const messages = [runtime(1), answer(1), big];
    const log = new HistoryLog({ messages });
    messages.forEach((message, seq) => {
      const digest = messageDigest(message);
      raw
        .prepare("INSERT INTO blobs VALUES (?, ?)")
        .run(digest, Buffer.from(canonicalJson(message)));
      raw
        .prepare("INSERT INTO messages VALUES ('t', 'c', 0, ?, ?, ?)")
        .run(seq, message.id, digest);
    });
    raw
      .prepare(
        `INSERT INTO conversations (tenant, conversation_id, epoch, message_count, head_digest, last_run_id,
           created_at, updated_at, prompt_spec_input) VALUES ('t', 'c', 0, 3, ?, 'r1', 1, 1, '{"mcpServers":[]}')`,
      )
      .run(log.headDigest);
    raw.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite") });
    const loaded = await store.load("t", "c");
    expect(loaded).toMatchObject({
      epoch: 0,
      headDigest: log.headDigest,
      lastRunId: "r1",
      promptSpecInput: { mcpServers: [] },
    });
    expect(loaded?.messages).toEqual(messages);
    expect(store.schemaVersion).toBe(latestVersion);
    const check = new Database(join(dir, "gateway.sqlite"), { readonly: true });
    expect(check.prepare("SELECT COUNT(*) AS n FROM blob_chunks").get()).toEqual({ n: 4 });
    expect(
      check.prepare("SELECT size, chunk_count FROM blobs WHERE id = ?").get(messageDigest(big)),
    ).toEqual({ size: canonicalJson(big).length, chunk_count: 4 });
    check.close();
    await appendTurn(log, [answer(2)], version(log));
    expect((await store.load("t", "c"))?.messages).toHaveLength(4);
  });

  it("holds one run per conversation until released or the lease expires", async () => {
    let now = 0;
    await store.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite"), now: () => now });
    expect(
      await store.acquireRun({ tenant: "t", conversationId: "c", runId: "r1", leaseMs: 100 }),
    ).toBe(true);
    expect(
      await store.acquireRun({ tenant: "t", conversationId: "c", runId: "r2", leaseMs: 100 }),
    ).toBe(false);
    expect(
      await store.acquireRun({ tenant: "u", conversationId: "c", runId: "r2", leaseMs: 100 }),
    ).toBe(true);
    now = 101;
    expect(
      await store.acquireRun({ tenant: "t", conversationId: "c", runId: "r2", leaseMs: 100 }),
    ).toBe(true);
    await store.releaseRun({ tenant: "t", conversationId: "c", runId: "r2" });
    expect(
      await store.acquireRun({ tenant: "t", conversationId: "c", runId: "r3", leaseMs: 100 }),
    ).toBe(true);
    expect(await store.clearRunLocks()).toBe(2);
  });

  it("a small conversation's reads do not touch another one's large blobs", async () => {
    const small = new HistoryLog();
    await appendTurn(small, [runtime(1), answer(1)], null);
    const alone = await medianMs(async () => void (await store.load("t", "c")));
    const large = new HistoryLog();
    const other = { tenant: "t2", conversationId: "big" };
    for (let n = 0; n < 3; n += 1) {
      const checked = large.check([imageMessage(12, n)]);
      await store.appendMessages({
        ...other,
        expected: large.length === 0 ? null : version(large),
        messages: checked.appended,
        digests: checked.digests,
        next: { epoch: 0, headDigest: checked.headDigest, messageCount: checked.length },
      });
      large.append(checked.appended);
    }
    const beside = await medianMs(async () => void (await store.load("t", "c")));
    // In a WITHOUT ROWID blob table every lookup read the large rows it passed (~100 ms here).
    expect(beside).toBeLessThan(alone * 3 + 5);
  });

  it("reports a database file damaged underneath it", async () => {
    await appendTurn(new HistoryLog(), [runtime(1)], null);
    await expect(store.checkHealth()).resolves.toBeUndefined();
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.pragma("wal_checkpoint(TRUNCATE)");
    raw.close();
    const fd = openSync(join(dir, "gateway.sqlite"), "r+");
    writeSync(fd, Buffer.alloc(4096, 0x41), 0, 4096, 0);
    closeSync(fd);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    await expect(store.checkHealth()).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "unavailable",
    );
  });
});

async function medianMs(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[3]!;
}
