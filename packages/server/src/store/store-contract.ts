import {
  HistoryLog,
  canonicalJson,
  createAssistantMessage,
  createRuntimeMessage,
  messageDigest,
} from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GatewayStore, HeadVersion } from "./gateway-store.js";
import { describeProviderCallContract } from "./provider-call-contract.js";
import { StoreError } from "./store-error.js";

/**
 * One store under test: a fresh, empty database (an SQLite file, a PostgreSQL database) and
 * what the shared suite needs to look at it from the outside.
 */
export interface StoreFixture {
  readonly store: GatewayStore;
  /** Another store instance on the same database: what a second gateway process sees. */
  open(): Promise<GatewayStore>;
  /** Overwrites the bytes of every stored blob (a corrupted database). */
  tamperBlobs(bytes: Buffer): Promise<void>;
  /** Overwrites the bytes of one stored blob (an unchunked one: its row's bytes). */
  tamperBlob(input: { id: string; bytes: Buffer }): Promise<void>;
  /** Overwrites (or, without `bytes`, deletes) the chunk `seq` of every chunked blob. */
  tamperChunks(input: { seq: number; bytes?: Buffer }): Promise<void>;
  /** Every blob's row, by id: its size, chunk count and whether the row holds the bytes. */
  blobRows(): Promise<{ id: string; size: number; chunkCount: number; inline: boolean }[]>;
  /** Drops the `turns` table underneath the store: a database that cannot serve. */
  breakStore(): Promise<void>;
  /** Rows of a table. */
  rowCount(
    table:
      "blobs" | "blob_chunks" | "messages" | "turns" | "runs" | "client_blobs" | "provider_calls",
  ): Promise<number>;
  /** Every row of every table as text: equal dumps, byte-identical content. */
  dump(): Promise<string>;
  /** Closes every store it opened and removes the database. */
  dispose(): Promise<void>;
}

export interface StoreDriver {
  readonly name: string;
  /** Why the driver cannot run here (the suite is skipped and its title says so). */
  readonly skip?: string;
  create(): Promise<StoreFixture>;
}

const conversation = { tenant: "t", conversationId: "c" } as const;
const runtime = (n: number, text = `q${n}`) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });
const answer = (n: number, text = `a${n}`) =>
  createAssistantMessage({ runId: `r${n}`, step: 0, text });
const turn = (n: number) => ({
  eventId: `turn.m${n}.0`,
  record: {
    clientMessageId: `m${n}`,
    eventId: `turn.m${n}.0`,
    runId: `r${n}`,
    messageIds: [runtime(n).id],
  },
});

/** A runtime message with an image of `mebibytes` MiB (base64), distinct per `seed`. */
export function imageMessage(mebibytes: number, seed = 0): CanonicalMessage {
  const data = Buffer.alloc(Math.round(mebibytes * 1024 * 1024), seed + 1).toString("base64");
  return createRuntimeMessage({
    eventId: `turn.img${mebibytes}-${seed}.0`,
    runtimeKind: "user-turn",
    content: [
      { type: "text", text: `image ${seed}` },
      { type: "image", mimeType: "image/png", data },
    ],
  });
}

const corrupt = (error: unknown) => StoreError.isInstance(error) && error.reason === "corrupt";
const mebibyte = 1024 * 1024;

function version(log: HistoryLog): HeadVersion {
  return { epoch: log.epoch, headDigest: log.headDigest, messageCount: log.length };
}

const headMoved = (error: unknown) => StoreError.isInstance(error) && error.reason === "head-moved";

/** Appends `messages` as the gateway does: the log's check gives the digests and the next head. */
async function appendTurn(
  store: GatewayStore,
  log: HistoryLog,
  messages: CanonicalMessage[],
  expected: HeadVersion | null,
  extra: {
    turns?: ReturnType<typeof turn>[];
    lastRunId?: string;
    conversationId?: string;
  } = {},
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The store's whole contract, run against every driver (SQLite and PostgreSQL): the same
 * behaviour, the same refusals, the same concurrency guarantees between two instances of one
 * database.
 */
export function describeStoreContract(driver: StoreDriver): void {
  const title = `${driver.name} store contract${driver.skip === undefined ? "" : ` [skipped: ${driver.skip}]`}`;
  describe.skipIf(driver.skip !== undefined)(title, () => {
    let fixture: StoreFixture;
    let store: GatewayStore;
    beforeEach(async () => {
      fixture = await driver.create();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("appends turns append-only and loads the verified head with its turns and last run", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null, {
        turns: [turn(1)],
        lastRunId: "r1",
      });
      await appendTurn(store, log, [runtime(2), answer(2)], version(log), {
        turns: [turn(2)],
        lastRunId: "r2",
      });
      const loaded = await store.load("t", "c");
      expect(loaded?.messages.map((m) => m.id)).toEqual(log.messages.map((m) => m.id));
      expect(loaded?.messages).toEqual(log.messages);
      expect(loaded?.headDigest).toBe(log.headDigest);
      expect(loaded?.turns).toEqual([turn(1).record, turn(2).record]);
      expect(loaded?.lastRunId).toBe("r2");
      expect(loaded?.usage).toEqual({
        inputTokens: 0,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
      });
      expect(await store.headVersion("t", "c")).toEqual(version(log));
      // The decoded messages carry their digests: the log built from them matches, hash-free.
      const reloaded = new HistoryLog({ messages: loaded!.messages });
      expect(reloaded.headDigest).toBe(log.headDigest);
      expect(reloaded.digests).toEqual(log.messages.map((m) => messageDigest(m)));
      expect(await store.load("other-tenant", "c")).toBeUndefined();
      expect(await store.headVersion("other-tenant", "c")).toBeUndefined();
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
        promptSpecInput: { mcpServers: [{ name: "fs" }] },
      });
      hydrated.append(checked.appended);
      // A retry's record is rewritten in place, not added.
      await appendTurn(store, hydrated, [answer(2)], version(hydrated), {
        turns: [{ ...turn(2), record: { ...turn(2).record, runId: "r2b" } }, turn(3)],
      });
      const loaded = await store.load("t", "c");
      expect(loaded?.messages.map((m) => m.id)).toEqual(hydrated.messages.map((m) => m.id));
      expect(loaded?.turns).toEqual([
        turn(1).record,
        { ...turn(2).record, runId: "r2b" },
        turn(3).record,
      ]);
      expect(loaded?.promptSpecInput).toEqual({ mcpServers: [{ name: "fs" }] });
      expect(await fixture.rowCount("turns")).toBe(3);
    });

    it("refuses a write from a stale head, or creating one that exists, and changes nothing", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null);
      const stale = version(log);
      await appendTurn(store, log, [runtime(2), answer(2)], stale);
      const before = await store.load("t", "c");
      const dump = await fixture.dump();
      const other = new HistoryLog({ messages: before!.messages.slice(0, 2) });
      await expect(appendTurn(store, other, [runtime(3)], stale)).rejects.toSatisfy(headMoved);
      await expect(appendTurn(store, new HistoryLog(), [runtime(3)], null)).rejects.toSatisfy(
        headMoved,
      );
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
      expect(await fixture.dump()).toBe(dump);
    });

    it("refuses writes that cannot be right before touching anything", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1)], null);
      const expected = version(log);
      const dump = await fixture.dump();
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
      expect(await fixture.dump()).toBe(dump);
    });

    it("starts a new epoch with a replacement history, keeping the old epoch's rows", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null);
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
      // Append-only: epoch 0 is still there (3 message rows), its blobs shared with epoch 1.
      expect(await fixture.rowCount("messages")).toBe(3);
      expect(await fixture.rowCount("blobs")).toBe(2);
    });

    it("records a run with the accepted run, usage and last input of a stored head", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null, { lastRunId: "r1" });
      const usage = {
        inputTokens: 3_000_000_000,
        cachedInputTokens: 4,
        cacheWriteTokens: 2,
        outputTokens: 3,
      };
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
      // A run recorded again (a retry) is rewritten in place.
      await store.recordRun({
        ...conversation,
        expected: version(log),
        run: { runId: "r2", status: "failed", error: { code: "provider_error", message: "x" } },
      });
      expect(await store.getRun({ ...conversation, runId: "r2" })).toEqual({
        runId: "r2",
        status: "failed",
        error: { code: "provider_error", message: "x" },
      });
      expect(await fixture.rowCount("runs")).toBe(2);
    });

    it("records the run of a conversation it does not have, and nothing else", async () => {
      await store.recordRun({
        ...conversation,
        expected: null,
        run: { runId: "r1", status: "failed", error: { code: "provider_error", message: "down" } },
      });
      expect(await store.getRun({ ...conversation, runId: "r1" })).toEqual({
        runId: "r1",
        status: "failed",
        error: { code: "provider_error", message: "down" },
      });
      expect(await store.getRun({ ...conversation, runId: "r2" })).toBeUndefined();
      expect(await store.load("t", "c")).toBeUndefined();
    });

    it("detects a tampered blob on load", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1)], null);
      await fixture.tamperBlobs(Buffer.from('{"tampered":true}'));
      await expect(store.load("t", "c")).rejects.toSatisfy(
        (error) => StoreError.isInstance(error) && error.reason === "corrupt",
      );
    });

    it("stores a blob once for every conversation and tenant that holds it", async () => {
      const shared = runtime(1, "the same words");
      for (const [tenant, conversationId] of [
        ["t", "c1"],
        ["t", "c2"],
        ["u", "c1"],
      ] as const) {
        const log = new HistoryLog();
        const checked = log.check([shared, answer(1, `${tenant}/${conversationId}`)]);
        await store.appendMessages({
          tenant,
          conversationId,
          expected: null,
          messages: checked.appended,
          digests: checked.digests,
          next: { epoch: 0, headDigest: checked.headDigest, messageCount: 2 },
        });
      }
      expect(await fixture.rowCount("messages")).toBe(6);
      expect(await fixture.rowCount("blobs")).toBe(4);
      expect((await store.load("u", "c1"))?.messages[0]).toEqual(shared);
    });

    it("stores a long history and large messages whole", async () => {
      const log = new HistoryLog();
      const big = "x".repeat(2_000_000);
      const messages = Array.from({ length: 600 }, (_, i) =>
        i % 2 === 0 ? runtime(i, i === 0 ? big : `q${i}`) : answer(i),
      );
      await appendTurn(store, log, messages, null);
      const loaded = await store.load("t", "c");
      expect(loaded?.messages).toEqual(log.messages);
      expect(loaded?.headDigest).toBe(log.headDigest);
    });

    it("stores a blob over 1 MiB in 1 MiB chunks and reads it back whole and verified", async () => {
      const log = new HistoryLog();
      const big = imageMessage(5);
      await appendTurn(store, log, [runtime(1), big], null);
      const bytes = Buffer.from(canonicalJson(big));
      const rows = await fixture.blobRows();
      expect(rows).toEqual(
        [
          {
            id: log.digests[0]!,
            size: canonicalJson(runtime(1)).length,
            chunkCount: 0,
            inline: true,
          },
          {
            id: log.digests[1]!,
            size: bytes.length,
            chunkCount: Math.ceil(bytes.length / mebibyte),
            inline: false,
          },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
      expect(await fixture.rowCount("blob_chunks")).toBe(Math.ceil(bytes.length / mebibyte));
      expect((await store.load("t", "c"))?.messages).toEqual([runtime(1), big]);
      // Another conversation holding it stores no second copy.
      await appendTurn(store, new HistoryLog(), [big], null, { conversationId: "c2" });
      expect(await fixture.rowCount("blob_chunks")).toBe(Math.ceil(bytes.length / mebibyte));
      const history = await store.readHistory("t", "c");
      expect(history).toMatchObject({ epoch: 0, messageCount: 2, headDigest: log.headDigest });
      const read: Buffer[][] = [];
      for await (const pieces of history!.messages) read.push(pieces.map((p) => Buffer.from(p)));
      expect(read.map((pieces) => pieces.length)).toEqual([1, Math.ceil(bytes.length / mebibyte)]);
      expect(read.flat().every((piece) => piece.length <= mebibyte)).toBe(true);
      expect(read.map((pieces) => Buffer.concat(pieces).toString())).toEqual(
        log.messages.map((message) => canonicalJson(message)),
      );
      expect(await store.readHistory("t", "missing")).toBeUndefined();
    });

    it("fails a read of a damaged or missing chunk as corrupt, on load and readHistory", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null);
      await appendTurn(store, log, [imageMessage(3)], version(log));
      await fixture.tamperChunks({ seq: 1, bytes: Buffer.from("damaged") });
      const damaged = await store.readHistory("t", "c");
      const iterator = damaged!.messages[Symbol.asyncIterator]();
      expect((await iterator.next()).done).toBe(false);
      expect((await iterator.next()).done).toBe(false);
      await expect(iterator.next()).rejects.toSatisfy(corrupt);
      await expect(store.load("t", "c")).rejects.toSatisfy(corrupt);
      await fixture.tamperChunks({ seq: 2 });
      await expect(store.load("t", "c")).rejects.toSatisfy(
        (error) => corrupt(error) && /lacks chunk 2/.test((error as Error).message),
      );
    });

    it("repairs damaged blobs from verified copies, leaving sound ones alone", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1), imageMessage(3)], null);
      await fixture.tamperBlob({ id: log.digests[0]!, bytes: Buffer.from("{}") });
      await fixture.tamperChunks({ seq: 2 });
      await expect(store.load("t", "c")).rejects.toSatisfy(corrupt);
      expect(await store.repairBlobs({ messages: log.messages, digests: log.digests })).toBe(2);
      expect((await store.load("t", "c"))?.messages).toEqual(log.messages);
      expect(await store.repairBlobs({ messages: log.messages, digests: log.digests })).toBe(0);
      const before = await fixture.dump();
      await expect(
        store.repairBlobs({ messages: [runtime(9)], digests: [log.digests[0]!] }),
      ).rejects.toSatisfy(
        (error) => StoreError.isInstance(error) && error.reason === "invalid-write",
      );
      expect(await fixture.dump()).toBe(before);
    });

    it("starts any later epoch (a verified checkpoint's), never an earlier or the same one", async () => {
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null);
      const later = new HistoryLog({ epoch: 3, messages: [runtime(2)] });
      const write = (epoch: number) =>
        store.startEpoch({
          ...conversation,
          expected: version(log),
          messages: later.messages,
          digests: later.digests,
          next: { epoch, headDigest: later.headDigest, messageCount: 1 },
        });
      for (const epoch of [0, -1]) {
        await expect(write(epoch)).rejects.toSatisfy(
          (error) => StoreError.isInstance(error) && error.reason === "invalid-write",
        );
      }
      await write(3);
      expect(await store.headVersion("t", "c")).toEqual(version(later));
      expect((await store.load("t", "c"))?.messages).toEqual(later.messages);
    });

    it("reports whether it can serve", async () => {
      await appendTurn(store, new HistoryLog(), [runtime(1)], null);
      await expect(store.checkHealth()).resolves.toBeUndefined();
      await fixture.breakStore();
      // A probe is reused for a second.
      await sleep(1_050);
      await expect(store.checkHealth()).rejects.toSatisfy(
        (error) =>
          StoreError.isInstance(error) &&
          error.reason === "unavailable" &&
          /turns/.test(error.message),
      );
    });

    it("holds one run per conversation until released or the lease lapses", async () => {
      const slot = (tenant: string, runId: string, leaseMs = 60_000) =>
        store.acquireRun({ tenant, conversationId: "c", runId, leaseMs });
      expect(await slot("t", "r1", 300)).toBe(true);
      expect(await slot("t", "r2")).toBe(false);
      expect(await slot("t", "r1")).toBe(false);
      expect(await slot("u", "r2")).toBe(true);
      expect(await store.renewRun({ ...conversation, runId: "r1", leaseMs: 300 })).toBe(true);
      expect(await store.renewRun({ ...conversation, runId: "r7", leaseMs: 300 })).toBe(false);
      await sleep(450);
      // Lapsed: another run takes the slot; the old holder cannot renew it.
      expect(await slot("t", "r2")).toBe(true);
      expect(await store.renewRun({ ...conversation, runId: "r1", leaseMs: 300 })).toBe(false);
      // Releasing a run that does not hold the slot leaves it alone.
      await store.releaseRun({ ...conversation, runId: "r1" });
      expect(await slot("t", "r3")).toBe(false);
      await store.releaseRun({ ...conversation, runId: "r2" });
      expect(await slot("t", "r3")).toBe(true);
    });

    it("lets exactly one of two instances take a run slot at the same moment", async () => {
      const other = await fixture.open();
      for (let round = 0; round < 10; round += 1) {
        const conversationId = `race-${round}`;
        const won = await Promise.all(
          [store, other].map((s, index) =>
            s.acquireRun({ tenant: "t", conversationId, runId: `r${index}`, leaseMs: 60_000 }),
          ),
        );
        expect(won.filter(Boolean)).toHaveLength(1);
      }
    });

    it("commits exactly one of two turns written from the same head by two instances", async () => {
      const other = await fixture.open();
      const log = new HistoryLog();
      await appendTurn(store, log, [runtime(1), answer(1)], null);
      for (let round = 2; round < 8; round += 1) {
        const expected = version(log);
        const candidates = [store, other].map((s, index) => {
          const fork = new HistoryLog({ messages: log.messages });
          const messages = [runtime(round, `from ${index}`), answer(round, `by ${index}`)];
          return { s, fork, messages };
        });
        const results = await Promise.allSettled(
          candidates.map(({ s, fork, messages }) => appendTurn(s, fork, messages, expected)),
        );
        const winners = results.flatMap((result, index) =>
          result.status === "fulfilled" ? [index] : [],
        );
        expect(winners).toHaveLength(1);
        const loser = results.find((result) => result.status === "rejected");
        expect(headMoved((loser as PromiseRejectedResult).reason)).toBe(true);
        log.append(candidates[winners[0]!]!.messages);
        const loaded = await other.load("t", "c");
        expect(loaded?.messages).toEqual(log.messages);
        expect(loaded?.headDigest).toBe(log.headDigest);
      }
    });

    it("keeps every conversation's stored history equal to the accepted writes (property)", async () => {
      // Writers append turns (or start epochs) from heads that may be stale: another writer
      // moved on since. Every refused write changes nothing; every accepted one extends the
      // stored history exactly as the writer's HistoryLog did.
      let conversationCounter = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              stale: fc.boolean(),
              size: fc.integer({ min: 1, max: 3 }),
              compact: fc.boolean(),
            }),
            { minLength: 1, maxLength: 8 },
          ),
          async (steps) => {
            const conversationId = `prop-${(conversationCounter += 1)}`;
            type Snapshot = { epoch: number; messages: readonly CanonicalMessage[] } | null;
            let current: Snapshot = null;
            let previous: Snapshot = null;
            let n = 0;
            for (const step of steps) {
              const from: Snapshot = step.stale ? previous : current;
              const writer: HistoryLog = new HistoryLog(from ?? undefined);
              const expected = from === null ? null : version(writer);
              const messages = Array.from({ length: step.size }, () => {
                n += 1;
                return n % 2 === 1 ? runtime(n) : answer(n);
              });
              const compact = step.compact && from !== null;
              const checked = compact ? writer.checkEpoch(messages) : writer.check(messages);
              const write = (compact ? store.startEpoch : store.appendMessages).call(store, {
                tenant: "t",
                conversationId,
                expected,
                messages: checked.appended,
                digests: checked.digests,
                next: {
                  epoch: compact ? writer.epoch + 1 : writer.epoch,
                  headDigest: checked.headDigest,
                  messageCount: checked.length,
                },
              });
              if (from === current) {
                await write;
                if (compact) writer.startEpoch(checked.appended);
                else writer.append(checked.appended);
                previous = current;
                current = { epoch: writer.epoch, messages: writer.messages };
              } else {
                await expect(write).rejects.toSatisfy(headMoved);
              }
              const loaded = await store.load("t", conversationId);
              if (current === null) expect(loaded).toBeUndefined();
              else {
                const model = new HistoryLog(current);
                expect(loaded?.messages).toEqual(model.messages);
                expect(loaded?.epoch).toBe(model.epoch);
                expect(loaded?.headDigest).toBe(model.headDigest);
              }
            }
          },
        ),
        { numRuns: 25, seed: 0x5eed },
      );
    });

    it("keeps the client blob ledger per tenant and conversation", async () => {
      const ledger = (tenant: string, conversationId: string, blobIds: string[]) =>
        store.acknowledgedClientBlobs({ tenant, conversationId, blobIds });
      expect([...(await ledger("t", "c", ["aa", "bb"]))]).toEqual([]);
      await store.recordClientBlobs({ ...conversation, blobIds: ["aa", "bb", "aa"] });
      await store.recordClientBlobs({ ...conversation, blobIds: ["bb", "cc"] });
      await store.recordClientBlobs({ ...conversation, blobIds: [] });
      await store.recordClientBlobs({ tenant: "u", conversationId: "c", blobIds: ["dd"] });
      expect([...(await ledger("t", "c", ["aa", "cc", "dd", "ee"]))].sort()).toEqual(["aa", "cc"]);
      expect([...(await ledger("t", "c", []))]).toEqual([]);
      expect([...(await ledger("u", "c", ["aa", "dd"]))]).toEqual(["dd"]);
      expect([...(await ledger("t", "other", ["aa"]))]).toEqual([]);
      expect(await fixture.rowCount("client_blobs")).toBe(4);
      // Another instance (process) sees the same ledger.
      const other = await fixture.open();
      expect(
        [...(await other.acknowledgedClientBlobs({ ...conversation, blobIds: ["bb"] }))].sort(),
      ).toEqual(["bb"]);
      // Many ids in one call.
      const many = Array.from({ length: 2_000 }, (_, i) => i.toString(16).padStart(64, "0"));
      await other.recordClientBlobs({ ...conversation, blobIds: many });
      expect((await store.acknowledgedClientBlobs({ ...conversation, blobIds: many })).size).toBe(
        2_000,
      );
    });

    describeProviderCallContract(() => fixture);
  });
}
