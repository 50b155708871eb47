// A run's answer ends (`run.ended`, then the front door ends its response) before the run's own
// record and its calls' usage records are written: those are not part of the answer. The
// conversation stays held meanwhile, so its next request waits for them instead of being
// refused, and a read of the records right after the answer sees them. Where several processes
// share the store, another process may take the next turn at once: the records come first.
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeProviderServiceOptions } from "./__fixtures__/fake-provider-service-options.js";
import { ConversationService } from "./conversation-service.js";
import type { PreparedRun } from "./conversation-service.js";
import type { RunEvent } from "./run-events.js";
import { SqliteStore } from "./store/sqlite-store.js";

const key = "sk-records-after-answer-0123456789";
const tenant = { id: "t-records" };
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());

/** A SQLite store whose `recordRun` waits for `open()`: the run's record held back at will. */
function gatedStore({ shared }: { shared: boolean }) {
  const store = new SqliteStore({ path: ":memory:" });
  Object.defineProperty(store, "sharedAcrossProcesses", { value: shared });
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  const writes: string[] = [];
  const recordRun = store.recordRun.bind(store);
  store.recordRun = async (input) => {
    await gate;
    writes.push(`run ${input.run.runId}`);
    return recordRun(input);
  };
  const record = store.providerCalls.record.bind(store.providerCalls);
  store.providerCalls.record = async (call) => {
    writes.push(`usage ${call.runId}`);
    return record(call);
  };
  return {
    store,
    writes,
    open: () => open(),
    close: () => {
      gate = Promise.resolve();
      open();
    },
  };
}

function service(store: SqliteStore): ConversationService {
  return new ConversationService(
    fakeProviderServiceOptions({
      store,
      fake,
      apiKey: key,
      checkpointSecret: "records-after-answer-secret-0123456789",
    }),
  );
}

const turn = (runId: string, text: string) => ({
  conversationId: "c-records",
  runId,
  mode: "agent",
  timestamp: "2026-11-29T10:00:00+01:00",
  action: { type: "user-message", message: { id: `m-${runId}`, text } },
});

async function execute(prepared: PreparedRun): Promise<{ reason: string; events: RunEvent[] }> {
  const events: RunEvent[] = [];
  const outcome = await prepared.execute({ event: (event) => events.push(event) });
  return { reason: outcome.reason, events };
}

/** Whether `promise` settled by the time everything queued before now has run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
}

describe("a run's records on a store one process owns", () => {
  it("follow its answer; the next request waits for them, and so does a read of them", async () => {
    const gated = gatedStore({ shared: false });
    const gateway = service(gated.store);
    try {
      fake.enqueue({ type: "text", text: "first answer", chunks: 2 });
      const first = await gateway.prepareRun({ tenant, body: turn("r1", "hello") });
      const answered = await execute(first);
      // The whole answer is out, checkpoint included, while the run's record is held back.
      expect(answered.reason).toBe("completed");
      expect(answered.events.map((event) => event.type)).toEqual([
        "run.started",
        "text.delta",
        "text.delta",
        "usage",
        "head",
        "head",
        "run.ended",
      ]);
      expect(answered.events.at(-2)).toMatchObject({ type: "head", final: true });
      expect(gated.writes).toEqual([]);
      // Nothing left to cancel: the run has answered.
      expect(gateway.cancel({ tenant, conversationId: "c-records" })).toBe(false);

      // The next turn, sent right away, is not refused as busy: it waits for the records.
      fake.enqueue({ type: "text", text: "second answer", chunks: 1 });
      const next = gateway.prepareRun({ tenant, body: turn("r2", "and then?") });
      const settled = gateway.recordsSettled({ tenant: tenant.id });
      expect(await settledYet(next)).toBe(false);
      expect(await settledYet(settled)).toBe(false);

      gated.open();
      await settled;
      await first.finished;
      // The run's record, then its call's usage record.
      expect(gated.writes).toEqual(["run r1", "usage r1"]);
      const second = await next;
      expect((await execute(second)).reason).toBe("completed");
      await second.finished;
      expect(gated.writes).toEqual(["run r1", "usage r1", "run r2", "usage r2"]);
      const calls = await gated.store.providerCalls.list({
        tenant: tenant.id,
        conversationId: "c-records",
        limit: 10,
      });
      expect(calls.map((call) => call.runId)).toEqual(["r1", "r2"]);
    } finally {
      gated.close();
      await gateway.shutdown();
      await gated.store.close();
    }
  });

  it("are not written before the front door has its answer back: none is on the answer's path", async () => {
    const gated = gatedStore({ shared: false });
    gated.open();
    const gateway = service(gated.store);
    try {
      fake.enqueue({ type: "text", text: "quick", chunks: 1 });
      const prepared = await gateway.prepareRun({ tenant, body: turn("r1", "hello") });
      await prepared.execute({ event: () => undefined });
      // The front door ends its response here: the store's writes (synchronous in SQLite) of
      // the run's records must not have run ahead of it.
      expect(gated.writes).toEqual([]);
      await prepared.finished;
      expect(gated.writes).toEqual(["run r1", "usage r1"]);
    } finally {
      gated.close();
      await gateway.shutdown();
      await gated.store.close();
    }
  });

  it("a busy conversation (its run still answering) is refused at once", async () => {
    const gated = gatedStore({ shared: false });
    gated.open();
    const gateway = service(gated.store);
    try {
      fake.enqueue({ type: "text", text: "slow", chunks: 1 });
      const first = await gateway.prepareRun({ tenant, body: turn("r1", "hello") });
      await expect(
        gateway.prepareRun({ tenant, body: turn("r2", "too soon") }),
      ).rejects.toMatchObject({ name: "ConversationBusyError" });
      await execute(first);
      await first.finished;
    } finally {
      gated.close();
      await gateway.shutdown();
      await gated.store.close();
    }
  });
});

describe("a run's records on a store several processes share", () => {
  it("are written before its answer ends", async () => {
    const gated = gatedStore({ shared: true });
    const gateway = service(gated.store);
    try {
      fake.enqueue({ type: "text", text: "shared answer", chunks: 1 });
      const prepared = await gateway.prepareRun({ tenant, body: turn("r1", "hello") });
      const answer = execute(prepared);
      expect(await settledYet(answer)).toBe(false);
      gated.open();
      expect((await answer).reason).toBe("completed");
      expect(gated.writes).toEqual(["run r1", "usage r1"]);
    } finally {
      gated.close();
      await gateway.shutdown();
      await gated.store.close();
    }
  });
});
