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
import type { HeadVersion } from "./gateway-store.js";
import { migrations } from "./migrations.js";
import { SqliteStore } from "./sqlite-store.js";
import { StoreError } from "./store-error.js";

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
const runtime = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `q${n}` }],
  });
const answer = (n: number) => createAssistantMessage({ runId: `r${n}`, step: 0, text: `a${n}` });
const turn = (n: number) => ({
  eventId: `turn.m${n}.0`,
  record: {
    clientMessageId: `m${n}`,
    eventId: `turn.m${n}.0`,
    runId: `r${n}`,
    messageIds: [runtime(n).id],
  },
});

function version(log: HistoryLog): HeadVersion {
  return { epoch: log.epoch, headDigest: log.headDigest, messageCount: log.length };
}

/** Appends `messages` as the gateway does: the log's check gives the digests and the next head. */
async function appendTurn(
  log: HistoryLog,
  messages: CanonicalMessage[],
  expected: HeadVersion | null,
  extra: { turns?: ReturnType<typeof turn>[]; lastRunId?: string } = {},
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

describe("SqliteStore", () => {
  it("applies migrations once and records the schema version", async () => {
    expect(store.schemaVersion).toBe(4);
    await store.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite") });
    expect(store.schemaVersion).toBe(4);
  });

  it("appends turns append-only and loads the verified head with its turns and last run", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null, { turns: [turn(1)], lastRunId: "r1" });
    await appendTurn(log, [runtime(2), answer(2)], version(log), {
      turns: [turn(2)],
      lastRunId: "r2",
    });
    const loaded = await store.load("t", "c");
    expect(loaded?.messages.map((m) => m.id)).toEqual(log.messages.map((m) => m.id));
    expect(loaded?.headDigest).toBe(log.headDigest);
    expect(loaded?.turns).toEqual([turn(1).record, turn(2).record]);
    expect(loaded?.lastRunId).toBe("r2");
    expect(await store.headVersion("t", "c")).toEqual(version(log));
    // The decoded messages carry their digests: the log built from them matches, hash-free.
    const reloaded = new HistoryLog({ messages: loaded!.messages });
    expect(reloaded.headDigest).toBe(log.headDigest);
    expect(reloaded.digests).toEqual(log.messages.map((m) => messageDigest(m)));
    expect(await store.load("other-tenant", "c")).toBeUndefined();
  });

  it("creates a conversation with a seed in the first append, turn records upserted by event id", async () => {
    const hydrated = new HistoryLog({ messages: [runtime(1), answer(1)] });
    const checked = hydrated.check([runtime(2)]);
    await store.appendMessages({
      ...conversation,
      expected: null,
      messages: [...hydrated.messages, ...checked.appended],
      digests: [...hydrated.digests, ...checked.digests],
      next: { epoch: 0, headDigest: checked.headDigest, messageCount: 3 },
      turns: [turn(1), turn(2)],
    });
    hydrated.append(checked.appended);
    // A retry's record is rewritten in place, not added.
    await appendTurn(hydrated, [answer(2)], version(hydrated), {
      turns: [{ ...turn(2), record: { ...turn(2).record, runId: "r2b" } }],
    });
    const loaded = await store.load("t", "c");
    expect(loaded?.messages.map((m) => m.id)).toEqual(hydrated.messages.map((m) => m.id));
    expect(loaded?.turns).toEqual([turn(1).record, { ...turn(2).record, runId: "r2b" }]);
  });

  it("refuses a write from a stale head, or creating one that exists, and changes nothing", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null);
    const stale = version(log);
    await appendTurn(log, [runtime(2), answer(2)], stale);
    const before = await store.load("t", "c");
    const headMoved = (error: unknown) =>
      StoreError.isInstance(error) && error.reason === "head-moved";
    const other = new HistoryLog({ messages: before!.messages.slice(0, 2) });
    await expect(appendTurn(other, [runtime(3)], stale)).rejects.toSatisfy(headMoved);
    await expect(appendTurn(new HistoryLog(), [runtime(3)], null)).rejects.toSatisfy(headMoved);
    const epoch = other.checkEpoch([runtime(3)]);
    await expect(
      store.startEpoch({
        ...conversation,
        expected: stale,
        messages: epoch.appended,
        digests: epoch.digests,
        next: { epoch: 1, headDigest: epoch.headDigest, messageCount: 1 },
      }),
    ).rejects.toSatisfy(headMoved);
    await expect(
      store.recordRun({
        ...conversation,
        expected: stale,
        run: { runId: "r9", status: "completed" },
        lastRunId: "r9",
      }),
    ).rejects.toSatisfy(headMoved);
    expect(await store.load("t", "c")).toEqual(before);
    expect(await store.getRun({ ...conversation, runId: "r9" })).toBeUndefined();
  });

  it("refuses writes that cannot be right before touching anything", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1)], null);
    const expected = version(log);
    const checked = log.check([answer(1)]);
    const invalid = (error: unknown) =>
      StoreError.isInstance(error) && error.reason === "invalid-write";
    const base = {
      ...conversation,
      expected,
      messages: checked.appended,
      digests: checked.digests,
      next: { epoch: 0, headDigest: checked.headDigest, messageCount: 2 },
    };
    await expect(store.appendMessages({ ...base, digests: [] })).rejects.toSatisfy(invalid);
    await expect(
      store.appendMessages({ ...base, next: { ...base.next, messageCount: 5 } }),
    ).rejects.toSatisfy(invalid);
    await expect(
      store.appendMessages({ ...base, next: { ...base.next, epoch: 1 } }),
    ).rejects.toSatisfy(invalid);
    await expect(
      store.startEpoch({ ...base, next: { ...base.next, epoch: 0, messageCount: 1 } }),
    ).rejects.toSatisfy(invalid);
    expect(await store.headVersion("t", "c")).toEqual(expected);
  });

  it("starts a new epoch with a replacement history", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null);
    const expected = version(log);
    const next = log.checkEpoch([runtime(1)]);
    await store.startEpoch({
      ...conversation,
      expected,
      messages: next.appended,
      digests: next.digests,
      next: { epoch: 1, headDigest: next.headDigest, messageCount: 1 },
      lastRunId: "r5",
    });
    const loaded = await store.load("t", "c");
    expect(loaded?.epoch).toBe(1);
    expect(loaded?.messages.map((m) => m.id)).toEqual([runtime(1).id]);
    expect(loaded?.headDigest).toBe(next.headDigest);
    expect(loaded?.lastRunId).toBe("r5");
  });

  it("records a run with the accepted run, usage and last input of a stored head", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null, { lastRunId: "r1" });
    const usage = { inputTokens: 10, cachedInputTokens: 4, cacheWriteTokens: 2, outputTokens: 3 };
    await store.recordRun({
      ...conversation,
      expected: version(log),
      run: { runId: "r1", status: "completed", finalText: "a1" },
      usage,
      lastInput: { inputTokens: 10, messageCount: 2 },
    });
    await store.recordRun({
      ...conversation,
      expected: version(log),
      run: { runId: "r2", status: "awaiting-tools" },
      lastRunId: "r2",
    });
    const loaded = await store.load("t", "c");
    expect(loaded).toMatchObject({
      lastRunId: "r2",
      usage,
      lastInput: { inputTokens: 10, messageCount: 2 },
      headDigest: log.headDigest,
    });
    expect(await store.getRun({ ...conversation, runId: "r1" })).toEqual({
      runId: "r1",
      status: "completed",
      finalText: "a1",
    });
    expect(await store.getRun({ ...conversation, runId: "r2" })).toEqual({
      runId: "r2",
      status: "awaiting-tools",
    });
  });

  it("records the run of a conversation it does not have, and nothing else", async () => {
    await store.recordRun({
      ...conversation,
      expected: null,
      run: {
        runId: "r1",
        status: "failed",
        error: { code: "provider_error", message: "down" },
      },
    });
    expect(await store.getRun({ ...conversation, runId: "r1" })).toEqual({
      runId: "r1",
      status: "failed",
      error: { code: "provider_error", message: "down" },
    });
    expect(await store.load("t", "c")).toBeUndefined();
  });

  it("detects a tampered blob on load", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1)], null);
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.prepare("UPDATE blobs SET bytes = ?").run(Buffer.from('{"tampered":true}'));
    raw.close();
    await expect(store.load("t", "c")).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "corrupt",
    );
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
    expect(store.schemaVersion).toBe(4);
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

  it("stores a large blob in 1 MiB chunks and reads it back whole and verified", async () => {
    const log = new HistoryLog();
    const big = image(5);
    await appendTurn(log, [big], null);
    const raw = new Database(join(dir, "gateway.sqlite"), { readonly: true });
    const bytes = Buffer.from(canonicalJson(big));
    expect(raw.prepare("SELECT size, chunk_count, bytes FROM blobs").get()).toEqual({
      size: bytes.length,
      chunk_count: Math.ceil(bytes.length / (1024 * 1024)),
      bytes: null,
    });
    raw.close();
    expect((await store.load("t", "c"))?.messages).toEqual([big]);
    const history = await store.readHistory("t", "c");
    expect(history).toMatchObject({ epoch: 0, messageCount: 1, headDigest: log.headDigest });
    const read: Buffer[][] = [];
    for await (const pieces of history!.messages) read.push(pieces.map((p) => Buffer.from(p)));
    expect(read).toHaveLength(1);
    expect(read[0]!.length).toBeGreaterThan(1);
    expect(Buffer.concat(read[0]!).equals(bytes)).toBe(true);
  });

  it("readHistory gives every message's canonical bytes, and fails on a damaged one", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null);
    await appendTurn(log, [image(2)], version(log));
    const collected: string[] = [];
    for await (const pieces of (await store.readHistory("t", "c"))!.messages) {
      collected.push(Buffer.concat(pieces).toString());
    }
    expect(collected).toEqual(log.messages.map((message) => canonicalJson(message)));
    expect(await store.readHistory("t", "missing")).toBeUndefined();
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.prepare("UPDATE blob_chunks SET bytes = ? WHERE seq = 1").run(Buffer.from("damaged"));
    raw.close();
    const damaged = await store.readHistory("t", "c");
    const iterator = damaged!.messages[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    expect((await iterator.next()).done).toBe(false);
    await expect(iterator.next()).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "corrupt",
    );
    await expect(store.load("t", "c")).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "corrupt",
    );
  });

  it("a small conversation's reads do not touch another one's large blobs", async () => {
    const small = new HistoryLog();
    await appendTurn(small, [runtime(1), answer(1)], null);
    const alone = await medianMs(async () => void (await store.load("t", "c")));
    const large = new HistoryLog();
    const other = { tenant: "t2", conversationId: "big" };
    for (let n = 0; n < 3; n += 1) {
      const checked = large.check([image(12, n)]);
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

  it("repairs damaged blobs from verified copies, leaving sound ones alone", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1), image(3)], null);
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.prepare("UPDATE blobs SET bytes = ? WHERE id = ?").run(Buffer.from("{}"), log.digests[0]);
    raw.prepare("DELETE FROM blob_chunks WHERE seq = 2").run();
    raw.close();
    await expect(store.load("t", "c")).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "corrupt",
    );
    expect(await store.repairBlobs({ messages: log.messages, digests: log.digests })).toBe(2);
    expect((await store.load("t", "c"))?.messages).toEqual(log.messages);
    expect(await store.repairBlobs({ messages: log.messages, digests: log.digests })).toBe(0);
    await expect(
      store.repairBlobs({ messages: [runtime(9)], digests: [log.digests[0]!] }),
    ).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "invalid-write",
    );
  });

  it("starts any later epoch (a verified checkpoint's), never an earlier or the same one", async () => {
    const log = new HistoryLog();
    await appendTurn(log, [runtime(1), answer(1)], null);
    const later = new HistoryLog({ epoch: 3, messages: [runtime(2)] });
    const write = (epoch: number) =>
      store.startEpoch({
        ...conversation,
        expected: version(log),
        messages: later.messages,
        digests: later.digests,
        next: { epoch, headDigest: later.headDigest, messageCount: 1 },
      });
    await expect(write(0)).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "invalid-write",
    );
    await write(3);
    expect(await store.headVersion("t", "c")).toEqual(version(later));
  });

  it("reports whether it can serve", async () => {
    await expect(store.checkHealth()).resolves.toBeUndefined();
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.exec("DROP TABLE turns");
    raw.close();
    // A probe is reused for a second.
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    await expect(store.checkHealth()).rejects.toSatisfy(
      (error) =>
        StoreError.isInstance(error) &&
        error.reason === "unavailable" &&
        /turns/.test(error.message),
    );
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

/** A runtime message with an image of `mebibytes` MiB (base64), distinct per `seed`. */
function image(mebibytes: number, seed = 0): CanonicalMessage {
  const data = Buffer.alloc(mebibytes * 1024 * 1024, seed + 1).toString("base64");
  return createRuntimeMessage({
    eventId: `turn.img${mebibytes}-${seed}.0`,
    runtimeKind: "user-turn",
    content: [
      { type: "text", text: `image ${seed}` },
      { type: "image", mimeType: "image/png", data },
    ],
  });
}

async function medianMs(run: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 7; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[3]!;
}
