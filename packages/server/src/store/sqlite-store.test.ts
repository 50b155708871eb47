import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { HistoryLog, createRuntimeMessage, createAssistantMessage } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore, StoreError } from "./sqlite-store.js";
import type { HeadVersion } from "./gateway-store.js";

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

async function commitTurn(
  log: HistoryLog,
  messages: CanonicalMessage[],
  expected: HeadVersion | null,
) {
  const start = log.length;
  log.append(messages);
  await store.commit({
    tenant: "t",
    conversationId: "c",
    expected,
    mode: "append",
    messages: log.messages.slice(start),
    digests: log.messages.slice(start).map((_, i) => log.digestAt(start + i)!),
    next: version(log),
    lastRunId: `r${start}`,
  });
}

describe("SqliteStore", () => {
  it("applies migrations once and records the schema version", async () => {
    expect(store.schemaVersion).toBe(2);
    await store.close();
    store = new SqliteStore({ path: join(dir, "gateway.sqlite") });
    expect(store.schemaVersion).toBe(2);
  });

  it("commits turns append-only and loads the verified head", async () => {
    const log = new HistoryLog();
    await commitTurn(log, [runtime(1), answer(1)], null);
    const afterFirst = version(log);
    await commitTurn(log, [runtime(2), answer(2)], afterFirst);
    const loaded = await store.load("t", "c");
    expect(loaded?.messages.map((m) => m.id)).toEqual(log.messages.map((m) => m.id));
    expect(loaded?.headDigest).toBe(log.headDigest);
    expect(new HistoryLog({ messages: loaded!.messages }).headDigest).toBe(log.headDigest);
    expect(await store.load("other-tenant", "c")).toBeUndefined();
  });

  it("rejects a commit from a stale head and changes nothing", async () => {
    const log = new HistoryLog();
    await commitTurn(log, [runtime(1), answer(1)], null);
    const stale = version(log);
    await commitTurn(log, [runtime(2), answer(2)], stale);
    const before = await store.load("t", "c");
    const other = new HistoryLog({ messages: before!.messages.slice(0, 2) });
    await expect(commitTurn(other, [runtime(3)], stale)).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "head-moved",
    );
    expect(await store.load("t", "c")).toEqual(before);
  });

  it("starts a new epoch with a replacement history", async () => {
    const log = new HistoryLog();
    await commitTurn(log, [runtime(1), answer(1)], null);
    const expected = version(log);
    log.startEpoch([runtime(1)]);
    await store.commit({
      tenant: "t",
      conversationId: "c",
      expected,
      mode: "new-epoch",
      messages: log.messages,
      digests: [log.digestAt(0)!],
      next: version(log),
    });
    const loaded = await store.load("t", "c");
    expect(loaded?.epoch).toBe(1);
    expect(loaded?.messages.map((m) => m.id)).toEqual([runtime(1).id]);
  });

  it("detects a tampered blob on load", async () => {
    const log = new HistoryLog();
    await commitTurn(log, [runtime(1)], null);
    const raw = new Database(join(dir, "gateway.sqlite"));
    raw.prepare("UPDATE blobs SET bytes = ?").run(Buffer.from('{"tampered":true}'));
    raw.close();
    await expect(store.load("t", "c")).rejects.toSatisfy(
      (error) => StoreError.isInstance(error) && error.reason === "corrupt",
    );
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

  it("records runs", async () => {
    await store.saveRun("t", "c", { runId: "r1", status: "running" });
    await store.saveRun("t", "c", { runId: "r1", status: "completed", finalText: "done" });
    expect(await store.getRun("t", "c", "r1")).toEqual({
      runId: "r1",
      status: "completed",
      finalText: "done",
    });
  });
});
