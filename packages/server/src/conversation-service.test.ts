import { HistoryLog } from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ConversationBusyError,
  ConversationNotFoundError,
  InvalidRunRequestError,
  RunConflictError,
  UnknownModelError,
} from "./conversation-errors.js";
import { fakeProviderServiceOptions } from "./__fixtures__/fake-provider-service-options.js";
import { ConversationService } from "./conversation-service.js";
import type { HydratedHead } from "./conversation-service.js";
import { GatewayMetrics } from "./http/metrics.js";
import type { RunEvent, RunSink } from "./run-events.js";
import { SqliteStore } from "./store/sqlite-store.js";

const tenant = { id: "t-test" };
const key = "sk-service-test-key-0123456789";
let fake: FakeProvider;
let store: SqliteStore;
let service: ConversationService;
let errors: unknown[];

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  store = new SqliteStore({ path: ":memory:" });
  errors = [];
  service = new ConversationService(serviceOptions());
});
afterEach(async () => {
  await service.shutdown();
  await store.close();
});

function recordingSink(): RunSink & { events: RunEvent[] } {
  const events: RunEvent[] = [];
  return { events, event: (event) => void events.push(event) };
}

const userTurn = (runId: string, id: string, text: string, conversationId = "c1") => ({
  conversationId,
  runId,
  mode: "agent",
  timestamp: "2026-11-29T10:00:00+01:00",
  action: { type: "user-message", message: { id, text } },
});

async function run(body: unknown, extra: { hydrate?: () => Promise<HydratedHead> } = {}) {
  const prepared = await service.prepareRun({ tenant, body, ...extra });
  const sink = recordingSink();
  const outcome = await prepared.execute(sink);
  return { outcome, events: sink.events };
}

const ids = (history: HistoryLog) => history.messages.map((message) => message.id);

describe("ConversationService prepareRun → execute", () => {
  it("a run id reused for another message is a conflict, never the other message's answer", async () => {
    fake.enqueue({ type: "text", text: "the answer to one", chunks: 1 });
    expect((await run(userTurn("r1", "m1", "one"))).outcome).toEqual({ reason: "completed" });
    const before = await store.headVersion("t-test", "c1");
    const calls = fake.requests.length;
    for (const reused of [userTurn("r1", "m2", "two"), userTurn("r1", "m1", "one, edited")]) {
      const refusal = await service.prepareRun({ tenant, body: reused }).catch((error) => error);
      expect(RunConflictError.isInstance(refusal)).toBe(true);
      expect((refusal as Error).message).toMatch(/run r1 .*message m1/);
    }
    expect(fake.requests.length).toBe(calls);
    expect(await store.headVersion("t-test", "c1")).toEqual(before);
    // The retry itself (same run, same message, same content) still replays without a call.
    const retry = await run(userTurn("r1", "m1", "one"));
    expect(retry.events.filter((event) => event.type === "text.delta")).toEqual([
      { type: "text.delta", text: "the answer to one" },
    ]);
    expect(fake.requests.length).toBe(calls);
  });

  it("streams one turn as the exact event sequence, with a head after each commit and a final one", async () => {
    fake.enqueue({
      type: "tool-calls",
      calls: [{ name: "read_file", arguments: '{"path":"a"}', callId: "call_1" }],
    });
    const first = await run(userTurn("r1", "m1", "read a"));
    expect(first.events.map((event) => event.type)).toEqual([
      "run.started",
      "usage",
      "head",
      "tool.call",
      "head",
      "run.ended",
    ]);
    const [started, usage, committed, call, final, ended] = first.events;
    expect(started).toEqual({ type: "run.started", conversationId: "c1", runId: "r1", epoch: 0 });
    expect(usage).toMatchObject({ type: "usage", usage: { inputTokens: expect.any(Number) } });
    expect(call).toEqual({
      type: "tool.call",
      callId: "call_1",
      name: "read_file",
      arguments: '{"path":"a"}',
    });
    expect(ended).toEqual({ type: "run.ended", reason: "awaiting-tools" });
    expect(first.outcome).toEqual({ reason: "awaiting-tools" });
    if (committed?.type !== "head" || final?.type !== "head") throw new Error("expected heads");
    expect(committed.final).toBe(false);
    expect(final.final).toBe(true);
    // The commit's head holds the turn and the assistant's call; the round is open.
    expect(ids(committed.head.history)).toEqual([
      expect.stringMatching(/^runtime:turn\.m1\./),
      "assistant:r1:0",
    ]);
    expect(committed.pendingToolCalls.map((pending) => pending.callId)).toEqual(["call_1"]);
    expect(committed.head.lastRunId).toBe("r1");
    expect(committed.head.turns.map((turn) => turn.runId)).toEqual(["r1"]);
    expect(final.head.history.headDigest).toBe(committed.head.history.headDigest);
    expect(final.promptSpecDigest).toMatch(/^[0-9a-f]{64}$/);
    // The store holds exactly that head.
    expect((await store.headVersion("t-test", "c1"))?.headDigest).toBe(
      final.head.history.headDigest,
    );

    fake.enqueue({ type: "text", text: "a says hi", chunks: 1 });
    const second = await run({
      conversationId: "c1",
      runId: "r1",
      mode: "agent",
      action: { type: "tool-results", results: [{ callId: "call_1", output: "hi" }] },
    });
    expect(second.events.map((event) => event.type)).toEqual([
      "run.started",
      "text.delta",
      "usage",
      "head",
      "head",
      "run.ended",
    ]);
    expect(second.events[1]).toEqual({ type: "text.delta", text: "a says hi" });
    const head = second.events[3];
    if (head?.type !== "head") throw new Error("expected a head");
    expect(ids(head.head.history).slice(2)).toEqual(["tool-result:call_1", "assistant:r1:1"]);
    expect(head.pendingToolCalls).toEqual([]);
    expect(second.outcome).toEqual({ reason: "completed" });
    expect(await service.head({ tenant, conversationId: "c1" })).toBe(head.head);
  });

  it("a retry of a completed run: no provider call, the stored answer, a final head only", async () => {
    fake.enqueue({ type: "text", text: "done", chunks: 1 });
    await run(userTurn("r1", "m1", "go"));
    const calls = fake.requests.length;
    const retried = await run(userTurn("r1", "m1", "go"));
    expect(retried.events.map((event) => event.type)).toEqual([
      "run.started",
      "text.delta",
      "head",
      "run.ended",
    ]);
    expect(retried.events[1]).toEqual({ type: "text.delta", text: "done" });
    expect(fake.requests.length).toBe(calls);
  });

  it("a failed call: no head event, the store unchanged, the error with retryable", async () => {
    fake.enqueue({ type: "error", status: 500, message: `boom ${key}` });
    const failed = await run(userTurn("r1", "m1", "go"));
    expect(failed.events.map((event) => event.type)).toEqual(["run.started", "run.ended"]);
    expect(failed.outcome).toEqual({
      reason: "failed",
      error: { code: "provider_error", message: expect.any(String), retryable: true },
    });
    expect(failed.outcome.error?.message).not.toContain(key);
    expect(await store.load("t-test", "c1")).toBeUndefined();
    expect(await service.head({ tenant, conversationId: "c1" })).toBeUndefined();
  });

  it("hydrate: called only when the store does not know the conversation; written with the first commit", async () => {
    fake.enqueue({ type: "text", text: "one", chunks: 1 });
    const origin = await run(userTurn("r1", "m1", "one", "c-origin"));
    const final = origin.events.at(-2);
    if (final?.type !== "head") throw new Error("expected a final head");
    let hydrations = 0;
    const hydrate = async (): Promise<HydratedHead> => {
      hydrations += 1;
      return {
        history: new HistoryLog({
          epoch: final.head.history.epoch,
          messages: final.head.history.messages,
        }),
        turns: final.head.turns,
        ...(final.head.lastRunId === undefined ? {} : { lastRunId: final.head.lastRunId }),
      };
    };
    // Same conversation id on a fresh store, as a front door that carries its own state would.
    await store.close();
    store = new SqliteStore({ path: ":memory:" });
    service = new ConversationService(serviceOptions());
    fake.enqueue({ type: "text", text: "two", chunks: 1 });
    const continued = await run(userTurn("r2", "m2", "two", "c-origin"), { hydrate });
    expect(hydrations).toBe(1);
    expect(continued.outcome).toEqual({ reason: "completed" });
    const stored = await store.load("t-test", "c-origin");
    expect(stored?.messages.map((m) => m.id)).toEqual([
      ...ids(final.head.history),
      expect.stringMatching(/^runtime:turn\.m2\./),
      "assistant:r2:0",
    ]);
    expect(stored?.turns.map((turn) => (turn as { runId: string }).runId)).toEqual(["r1", "r2"]);
    // The store knows it now: hydrate is not asked again.
    fake.enqueue({ type: "text", text: "three", chunks: 1 });
    await run(userTurn("r3", "m3", "three", "c-origin"), { hydrate });
    expect(hydrations).toBe(1);
  });

  it("refuses with typed errors before anything is stored", async () => {
    const refusal = (body: unknown, extra = {}) =>
      service.prepareRun({ tenant, body, ...extra }).then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(InvalidRunRequestError.isInstance(await refusal({ conversationId: "c1" }))).toBe(true);
    expect(
      ConversationNotFoundError.isInstance(
        await refusal({
          conversationId: "c-none",
          runId: "r1",
          mode: "agent",
          action: { type: "tool-results", results: [{ callId: "x", output: "y" }] },
        }),
      ),
    ).toBe(true);
    expect(
      UnknownModelError.isInstance(
        await refusal(
          { ...userTurn("r1", "m1", "hi"), model: "gpt-9" },
          { unlistedModel: "reject" },
        ),
      ),
    ).toBe(true);
    fake.enqueue({ type: "text", text: "ok", chunks: 1 });
    await run(userTurn("r1", "m1", "hi"));
    expect(
      RunConflictError.isInstance(
        await refusal({
          conversationId: "c1",
          runId: "r2",
          mode: "agent",
          action: { type: "inject-context", injectionId: "i1", expectedRunId: "r0", text: "x" },
        }),
      ),
    ).toBe(true);
    const busy = await service.prepareRun({ tenant, body: userTurn("r2", "m2", "next") });
    expect(ConversationBusyError.isInstance(await refusal(userTurn("r3", "m3", "other")))).toBe(
      true,
    );
    fake.enqueue({ type: "text", text: "ok", chunks: 1 });
    await busy.execute(recordingSink());
    expect(fake.requests).toHaveLength(2);
  });

  it("an aborted signal cancels the run; the head stays as it was", async () => {
    fake.enqueue({ type: "text", text: "one", chunks: 1 });
    await run(userTurn("r1", "m1", "one"));
    const before = await store.headVersion("t-test", "c1");
    const controller = new AbortController();
    fake.enqueue({ type: "slow", delayMsPerEvent: 200, reply: { type: "text", text: "two" } });
    const prepared = await service.prepareRun({
      tenant,
      body: userTurn("r2", "m2", "two"),
      signal: controller.signal,
    });
    const sink = recordingSink();
    const running = prepared.execute(sink);
    setTimeout(() => controller.abort(), 50);
    expect(await running).toEqual({ reason: "cancelled" });
    expect(sink.events.filter((event) => event.type === "head" && !event.final)).toEqual([]);
    expect(sink.events.at(-1)).toEqual({ type: "run.ended", reason: "cancelled" });
    expect(await store.headVersion("t-test", "c1")).toEqual(before);
  });
});

describe("ConversationService reads without reloading the history", () => {
  it("summary and provider requests of a conversation it holds never load the stored history", async () => {
    fake.enqueue({ type: "text", text: "hi", chunks: 1 });
    await run(userTurn("r1", "m1", "hello"));
    fake.enqueue({ type: "text", text: "again", chunks: 1 });
    await run(userTurn("r2", "m2", "more"));
    let loads = 0;
    const load = store.load.bind(store);
    store.load = (...args) => {
      loads += 1;
      return load(...args);
    };
    const summary = await service.summary({ tenant, conversationId: "c1" });
    const version = await store.headVersion("t-test", "c1");
    expect(summary).toMatchObject({
      conversationId: "c1",
      epoch: 0,
      messages: version?.messageCount,
      headDigest: version?.headDigest,
    });
    expect(summary.usage.inputTokens).toBeGreaterThan(0);
    const requests = await service.providerRequests({ tenant, conversationId: "c1", limit: 5 });
    expect(requests.requests).toHaveLength(2);
    expect(loads).toBe(0);
    await expect(service.summary({ tenant, conversationId: "nope" })).rejects.toBeInstanceOf(
      ConversationNotFoundError,
    );
    await expect(
      service.providerRequests({ tenant, conversationId: "nope", limit: 5 }),
    ).rejects.toBeInstanceOf(ConversationNotFoundError);
  });

  it("a fresh process answers the summary from the store once, then from its cache", async () => {
    fake.enqueue({ type: "text", text: "hi", chunks: 1 });
    await run(userTurn("r1", "m1", "hello"));
    const fresh = new ConversationService(serviceOptions());
    let loads = 0;
    const load = store.load.bind(store);
    store.load = (...args) => {
      loads += 1;
      return load(...args);
    };
    const first = await fresh.summary({ tenant, conversationId: "c1" });
    const second = await fresh.summary({ tenant, conversationId: "c1" });
    expect(second).toEqual(first);
    expect(first.messages).toBe((await store.headVersion("t-test", "c1"))?.messageCount);
    expect(loads).toBe(1);
    await fresh.shutdown();
  });

  it("bounds the bytes of a provider-requests answer, the newest body always included", async () => {
    const small = new ConversationService({
      ...serviceOptions(),
      providerRequestsMaxBytes: 1,
    });
    fake.enqueue({ type: "text", text: "hi", chunks: 1 });
    await small
      .prepareRun({ tenant, body: userTurn("r1", "m1", "hello") })
      .then((prepared) => prepared.execute(recordingSink()));
    fake.enqueue({ type: "text", text: "again", chunks: 1 });
    await small
      .prepareRun({ tenant, body: userTurn("r2", "m2", "more") })
      .then((prepared) => prepared.execute(recordingSink()));
    const answer = await small.providerRequests({ tenant, conversationId: "c1", limit: 20 });
    expect(answer.requests).toHaveLength(1);
    expect(answer.omitted).toBe(1);
    const all = await service.providerRequests({ tenant, conversationId: "c1", limit: 20 });
    expect(all.omitted).toBe(0);
    await small.shutdown();
  });
});

function serviceOptions() {
  return fakeProviderServiceOptions({
    store,
    fake,
    apiKey: key,
    checkpointSecret: "service-test-checkpoint-secret-0123456789",
    metrics: new GatewayMetrics(),
    logger: { error: (details: Record<string, unknown>) => void errors.push(details) },
  });
}
