import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { fakeProviderServiceOptions } from "./__fixtures__/fake-provider-service-options.js";
import { ConversationService } from "./conversation-service.js";
import { GatewayMetrics } from "./http/metrics.js";
import type { RunEvent } from "./run-events.js";
import { SqliteStore } from "./store/sqlite-store.js";

const tenant = { id: "t-budget" };
const key = "sk-budget-test-key-0123456789";
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

/** A service on a fresh SQLite store with `cacheBytes`, counting the heads it loads from it. */
function gateway(cacheBytes: number | undefined) {
  const store = new SqliteStore({ path: ":memory:" });
  let loads = 0;
  const load = store.load.bind(store);
  store.load = (...args: Parameters<typeof load>) => {
    loads += 1;
    return load(...args);
  };
  // Wired as startGateway wires it: the gauges read the service's ledger on every scrape.
  const ref: { service?: ConversationService } = {};
  const metrics = new GatewayMetrics({
    processMetrics: false,
    cache: () => ref.service?.cacheStats(),
  });
  const service = new ConversationService(
    fakeProviderServiceOptions({
      store,
      fake,
      apiKey: key,
      checkpointSecret: "budget-test-checkpoint-secret-0123456789",
      metrics,
      ...(cacheBytes === undefined ? {} : { cacheBytes }),
    }),
  );
  ref.service = service;
  return {
    service,
    metrics,
    loads: () => loads,
    close: async () => {
      await service.shutdown();
      await store.close();
    },
  };
}

type Gateway = ReturnType<typeof gateway>;

async function run(target: Gateway, body: unknown, during?: (event: RunEvent) => void) {
  const prepared = await target.service.prepareRun({ tenant, body });
  const events: RunEvent[] = [];
  const outcome = await prepared.execute({
    event: (event) => {
      events.push(event);
      during?.(event);
    },
  });
  await prepared.finished;
  return { outcome, events };
}

/**
 * Two conversations taking turns, each turn a tool round then an answer: four runs a turn, the
 * other conversation's run in between (so a small budget evicts the head every time).
 */
async function converse(target: Gateway, turns: number, during?: (event: RunEvent) => void) {
  for (let turn = 0; turn < turns; turn += 1) {
    for (const conversationId of ["c1", "c2"]) {
      const runId = `${conversationId}-r${turn}`;
      fake.enqueue({
        type: "tool-calls",
        calls: [{ name: "read_file", arguments: `{"path":"f${turn}"}`, callId: `call_${turn}` }],
      });
      fake.enqueue({ type: "text", text: `${conversationId} read f${turn}`, chunks: 2 });
      const asked = await run(
        target,
        {
          conversationId,
          runId,
          mode: "agent",
          timestamp: "2026-11-29T10:00:00+01:00",
          action: {
            type: "user-message",
            message: { id: `${runId}-m`, text: `read f${turn}, ${conversationId}` },
          },
        },
        during,
      );
      expect(asked.outcome).toEqual({ reason: "awaiting-tools" });
      const answered = await run(
        target,
        {
          conversationId,
          runId,
          mode: "agent",
          action: {
            type: "tool-results",
            results: [{ callId: `call_${turn}`, output: `contents of f${turn} `.repeat(40) }],
          },
        },
        during,
      );
      expect(answered.outcome).toEqual({ reason: "completed" });
    }
  }
  return fake.requests.map((request) => request.body);
}

/** The length of a full checkpoint's full segments (32 blobs each), from its header. */
function fullSegmentBytes(token: string): number {
  const [, , header, ...parts] = token.split(".");
  const { segments } = JSON.parse(Buffer.from(header!, "base64url").toString()) as {
    segments: [string, number][];
  };
  return segments.reduce(
    (sum, [, count], index) => sum + (count === 32 ? parts[index]!.length : 0),
    0,
  );
}

function metricValue(text: string, name: string, kind?: string): number {
  const label = kind === undefined ? "" : `{kind="${kind}"}`;
  const line = text.split("\n").find((entry) => entry.startsWith(`${name}${label} `));
  if (line === undefined) throw new Error(`no ${name}${label} in the metrics`);
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("ConversationService under a cache budget", () => {
  it("a conversation evicted under a tiny budget continues from the store: the same bodies, call for call", async () => {
    const roomy = gateway(undefined);
    const reference = await converse(roomy, 3);
    expect(roomy.loads()).toBe(0); // every head stayed cached
    expect(roomy.service.cacheStats().kinds.head).toMatchObject({ entries: 2, evictions: 0 });
    await roomy.close();

    fake.reset();
    for (const budget of [0, 2_000]) {
      const tiny = gateway(budget);
      const bodies = await converse(tiny, 3);
      // Byte for byte what the cached heads produced: the exact prefix, every call.
      expect(bodies).toEqual(reference);
      expect(bodies).toHaveLength(12);
      const stats = tiny.service.cacheStats();
      expect(stats.maxBytes).toBe(budget);
      expect(stats.heldBytes).toBeLessThanOrEqual(budget);
      // Each run but the conversations' first found its head evicted and loaded it again.
      expect(tiny.loads()).toBe(12 - 2);
      expect(stats.kinds.head.evictions).toBeGreaterThanOrEqual(10);
      await tiny.close();
      fake.reset();
    }
    // Every call extended the conversation's previous one (the prefix never broke).
    const byConversation = new Map<string, { input: unknown[] }[]>();
    for (const body of reference as { input: unknown[]; prompt_cache_key: string }[]) {
      byConversation.set(body.prompt_cache_key, [
        ...(byConversation.get(body.prompt_cache_key) ?? []),
        body,
      ]);
    }
    expect([...byConversation.values()].map((calls) => calls.length)).toEqual([6, 6]);
    for (const calls of byConversation.values()) {
      const inputs = calls.map((body) => body.input.map((item) => JSON.stringify(item)));
      for (let call = 1; call < inputs.length; call += 1) {
        expect(inputs[call]!.length).toBeGreaterThan(inputs[call - 1]!.length);
        expect(inputs[call]!.slice(0, inputs[call - 1]!.length)).toEqual(inputs[call - 1]);
      }
    }
  });

  it("keeps a running conversation's head through the run, even over the budget", async () => {
    const tiny = gateway(0);
    const during: number[] = [];
    await converse(tiny, 1, (event) => {
      // The conversations' second runs start from a stored head (the first ones from nothing).
      if (event.type === "head" && event.head.turns.length > 0 && event.head.history.length > 2) {
        during.push(tiny.service.cacheStats().kinds.head.entries);
      }
    });
    // Pinned while its run went on (and only it: the other conversation's head was evicted);
    // gone once the run ended.
    expect(during.length).toBeGreaterThanOrEqual(2);
    expect(during.every((entries) => entries === 1)).toBe(true);
    expect(tiny.service.cacheStats()).toMatchObject({ heldBytes: 0, entries: 0 });
    await tiny.close();
  });

  it("keeps no copy of the segments a client holds in the checkpoint it sends back", async () => {
    const roomy = gateway(undefined);
    const { service } = roomy;
    let checkpoint: string | undefined;
    const issued: string[] = [];
    // A JSON-contract client of the full form: each request carries the last checkpoint.
    for (let turn = 0; turn < 40; turn += 1) {
      fake.enqueue({ type: "text", text: `answer ${turn} `.repeat(30), chunks: 1 });
      const prepared = await service.prepareRun({
        tenant,
        body: {
          conversationId: "c1",
          runId: `r${turn}`,
          mode: "agent",
          timestamp: "2026-11-29T10:00:00+01:00",
          action: {
            type: "user-message",
            message: { id: `m${turn}`, text: `question ${turn} `.repeat(30) },
          },
          // Turn 30 relies on the store alone (no checkpoint).
          ...(checkpoint === undefined || turn === 30 ? {} : { checkpoint }),
        },
      });
      await prepared.execute({
        event: (event) => {
          if (event.type !== "head" || !event.final) return;
          checkpoint = service.issueCheckpoint({
            tenant,
            head: event.head,
            promptSpecDigest: event.promptSpecDigest,
          });
          issued.push(checkpoint);
        },
      });
      const { checkpoint: held } = service.cacheStats().kinds;
      const fullParts = fullSegmentBytes(checkpoint!);
      if (turn === 30) {
        // No checkpoint came with the request: the full segments' bytes are kept for the next run.
        expect(held.bytes).toBeGreaterThan(fullParts);
      } else if (fullParts > 0) {
        // Only what names the segments stays (ids, digests): far less than their bytes.
        expect(held.bytes).toBeLessThan(fullParts / 2);
      }
    }
    // The tokens are exactly what a full encoding gives, and each decodes to the stored head.
    const full = await service.fullCheckpoint({ tenant, conversationId: "c1" });
    expect(full.checkpoint).toBe(issued.at(-1));
    expect(full.messages).toBeGreaterThan(64); // more than two full message segments
    expect(roomy.loads()).toBe(0);
    await roomy.close();
  });

  it("reports what the caches hold and evict in the metrics", async () => {
    const roomy = gateway(64 * 1024 * 1024);
    await converse(roomy, 2);
    let text = await roomy.metrics.registry.metrics();
    const stats = roomy.service.cacheStats();
    expect(metricValue(text, "cursor_gateway_cache_budget_bytes")).toBe(64 * 1024 * 1024);
    for (const kind of ["head", "provider-request", "prompt-spec"] as const) {
      expect(stats.kinds[kind].bytes).toBeGreaterThan(0);
      expect(metricValue(text, "cursor_gateway_cache_bytes", kind)).toBe(stats.kinds[kind].bytes);
    }
    expect(stats.heldBytes).toBe(
      Object.values(stats.kinds).reduce((sum, kind) => sum + kind.bytes, 0),
    );
    expect(text).not.toContain("cursor_gateway_cache_evictions_total{");
    await roomy.close();

    fake.reset();
    const tiny = gateway(0);
    await converse(tiny, 1);
    text = await tiny.metrics.registry.metrics();
    const evicted = tiny.service.cacheStats().kinds;
    expect(metricValue(text, "cursor_gateway_cache_evictions_total", "head")).toBe(
      evicted.head.evictions,
    );
    expect(metricValue(text, "cursor_gateway_cache_evictions_total", "provider-request")).toBe(
      evicted["provider-request"].evictions,
    );
    expect(evicted["provider-request"].evictions).toBeGreaterThan(0);
    expect(metricValue(text, "cursor_gateway_cache_bytes", "head")).toBe(0);
    await tiny.close();
  });
});
