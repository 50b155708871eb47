// A conversation runs one request at a time. Where one process owns the store (SQLite), that
// process's own bookkeeping is the run slot: taking and freeing it costs no store write (two
// write transactions per call, one of them before the provider call). Where several processes
// share the store (PostgreSQL), the slot is a lease in the store, taken before the run.
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeProviderServiceOptions } from "./__fixtures__/fake-provider-service-options.js";
import { ConversationService } from "./conversation-service.js";
import { SqliteStore } from "./store/sqlite-store.js";

const tenant = { id: "t-slots" };
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());

/** A SQLite store that counts its lease calls, declared shared or not. */
function countingStore({ shared }: { shared: boolean }) {
  const store = new SqliteStore({ path: ":memory:" });
  Object.defineProperty(store, "sharedAcrossProcesses", { value: shared });
  const calls: string[] = [];
  const acquire = store.acquireRun.bind(store);
  const release = store.releaseRun.bind(store);
  const renew = store.renewRun.bind(store);
  store.acquireRun = (input) => (calls.push(`acquire ${input.runId}`), acquire(input));
  store.releaseRun = (input) => (calls.push(`release ${input.runId}`), release(input));
  store.renewRun = (input) => (calls.push(`renew ${input.runId}`), renew(input));
  return { store, calls };
}

function service(store: SqliteStore): ConversationService {
  return new ConversationService(
    fakeProviderServiceOptions({
      store,
      fake,
      apiKey: "sk-run-slots-0123456789abcdef",
      checkpointSecret: "run-slots-secret-0123456789abcdef",
    }),
  );
}

const turn = (runId: string, text: string) => ({
  conversationId: "c-slots",
  runId,
  mode: "agent",
  timestamp: "2026-11-29T10:00:00+01:00",
  action: { type: "user-message", message: { id: `m-${runId}`, text } },
});

async function answer(gateway: ConversationService, runId: string, text: string) {
  fake.enqueue({ type: "text", text: `answer to ${text}`, chunks: 1 });
  const prepared = await gateway.prepareRun({ tenant, body: turn(runId, text) });
  const outcome = await prepared.execute({ event: () => undefined });
  await prepared.finished;
  return outcome.reason;
}

describe("the run slot", () => {
  it("of a store one process owns is the process's own: no store write takes or frees it", async () => {
    const { store, calls } = countingStore({ shared: false });
    const gateway = service(store);
    try {
      expect(await answer(gateway, "r1", "hello")).toBe("completed");
      // Still one run at a time: a request while one answers is refused, and it takes nothing.
      fake.enqueue({ type: "text", text: "slow", chunks: 1 });
      const first = await gateway.prepareRun({ tenant, body: turn("r2", "again") });
      const [second, third] = await Promise.allSettled([
        gateway.prepareRun({ tenant, body: turn("r3", "too soon") }),
        gateway.prepareRun({ tenant, body: turn("r4", "also too soon") }),
      ]);
      expect(second).toMatchObject({
        status: "rejected",
        reason: { name: "ConversationBusyError" },
      });
      expect(third).toMatchObject({
        status: "rejected",
        reason: { name: "ConversationBusyError" },
      });
      await first.execute({ event: () => undefined });
      await first.finished;
      // Freed once the run is over: the next turn runs.
      expect(await answer(gateway, "r5", "next")).toBe("completed");
      expect(calls).toEqual([]);
    } finally {
      await gateway.shutdown();
      await store.close();
    }
  });

  it("two requests of one new conversation at once: one runs, the other is refused", async () => {
    const { store } = countingStore({ shared: false });
    const gateway = service(store);
    try {
      fake.enqueue({ type: "text", text: "only one", chunks: 1 });
      const results = await Promise.allSettled([
        gateway.prepareRun({ tenant, body: turn("r1", "one") }),
        gateway.prepareRun({ tenant, body: turn("r2", "two") }),
      ]);
      expect(results.map((result) => result.status).sort()).toEqual(["fulfilled", "rejected"]);
      const prepared = results.find((result) => result.status === "fulfilled");
      if (prepared?.status !== "fulfilled") throw new Error("unreachable");
      expect((await prepared.value.execute({ event: () => undefined })).reason).toBe("completed");
      await prepared.value.finished;
      expect(await answer(gateway, "r3", "then")).toBe("completed");
    } finally {
      await gateway.shutdown();
      await store.close();
    }
  });

  it("a run that fails to start frees the slot", async () => {
    const { store } = countingStore({ shared: false });
    const gateway = service(store);
    try {
      // A tool result for a call nobody made: refused after the slot was taken.
      await expect(
        gateway.prepareRun({
          tenant,
          body: {
            conversationId: "c-slots",
            runId: "r0",
            mode: "agent",
            action: { type: "tool-results", results: [{ callId: "x", output: "y" }] },
          },
        }),
      ).rejects.toThrow();
      expect(await answer(gateway, "r1", "hello")).toBe("completed");
    } finally {
      await gateway.shutdown();
      await store.close();
    }
  });

  it("of a store several processes share is a lease in the store, taken and freed per run", async () => {
    const { store, calls } = countingStore({ shared: true });
    const gateway = service(store);
    try {
      expect(await answer(gateway, "r1", "hello")).toBe("completed");
      expect(await answer(gateway, "r2", "again")).toBe("completed");
      expect(calls).toEqual(["acquire r1", "release r1", "acquire r2", "release r2"]);
    } finally {
      await gateway.shutdown();
      await store.close();
    }
  });
});
