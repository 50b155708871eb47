import { describe, expect, it } from "vitest";
import type { GatewayStore } from "./gateway-store.js";
import type { ProviderCallRecord } from "./provider-call-store.js";

/** What the usage-record part of the store contract needs of a driver's fixture. */
export interface ProviderCallFixture {
  readonly store: GatewayStore;
  open(): Promise<GatewayStore>;
  rowCount(table: "provider_calls"): Promise<number>;
}

let counter = 0;

/** A complete record (every optional field set) with `overrides`. */
export function sampleCall(overrides: Partial<ProviderCallRecord> = {}): ProviderCallRecord {
  counter += 1;
  return {
    callId: `call-${counter}-${Math.random().toString(16).slice(2)}`,
    tenant: "t",
    conversationId: "c",
    runId: "r1",
    kind: "model",
    attempt: 1,
    epoch: 0,
    startedAt: 1_800_000_000_000 + counter,
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    catalogModel: "sonnet",
    outcome: "ok",
    usage: {
      inputTokens: 12_000,
      cachedInputTokens: 10_000,
      cacheWriteTokens: 1_500,
      cacheWrite1hTokens: 1_000,
      outputTokens: 321,
    },
    timeToFirstTokenMs: 412.5,
    durationMs: 1_804.25,
    gatewayOverheadMs: 3.125,
    prefix: {
      status: "broke",
      historyItems: 42,
      digest: "ab".repeat(32),
      sharedItems: 40,
      previousItems: 41,
      previousCallId: "call-0",
      divergence: {
        path: "input[40].content[0].text",
        causeKind: "edited",
        cause: "an earlier message was edited",
      },
    },
    divergenceView: JSON.stringify({ cause: { kind: "edited" }, diff: ["- a", "+ b"] }),
    process: { id: "p-1", startedAt: 1_799_999_999_000 },
    ...overrides,
  };
}

/** `record` as `list` returns it: `seq` aside, the view only flagged. */
function stored(record: ProviderCallRecord) {
  const { divergenceView, ...rest } = record;
  return { ...rest, hasDivergenceView: divergenceView !== undefined };
}

/**
 * The usage records' part of the store contract (`GatewayStore.providerCalls`), run against
 * every driver inside `describeStoreContract`.
 */
export function describeProviderCallContract(fixture: () => ProviderCallFixture): void {
  describe("usage records of provider calls", () => {
    it("round-trips every field, lists a conversation's calls oldest first and pages by seq", async () => {
      const { store } = fixture();
      const full = sampleCall();
      const failed = sampleCall({
        outcome: "failed",
        error: { code: "rate_limited", message: "slow down", retryable: true },
        attempt: 2,
        usage: undefined,
        timeToFirstTokenMs: undefined,
        divergenceView: undefined,
        prefix: { status: "extends", historyItems: 42, digest: "cd".repeat(32) },
      });
      const summarizer = sampleCall({
        kind: "summarizer",
        usage: { inputTokens: 9, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 3 },
        divergenceView: undefined,
        prefix: { status: "not-compared", historyItems: 2 },
      });
      for (const call of [full, failed, summarizer]) await store.providerCalls.record(call);
      await store.providerCalls.record(sampleCall({ conversationId: "other" }));
      await store.providerCalls.record(sampleCall({ tenant: "u" }));

      const calls = await store.providerCalls.list({ tenant: "t", conversationId: "c", limit: 10 });
      expect(calls.map(({ seq: _seq, ...rest }) => rest)).toEqual(
        [full, failed, summarizer].map(stored),
      );
      const seqs = calls.map((call) => call.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      const page1 = await store.providerCalls.list({ tenant: "t", conversationId: "c", limit: 2 });
      const page2 = await store.providerCalls.list({
        tenant: "t",
        conversationId: "c",
        limit: 2,
        afterSeq: page1.at(-1)!.seq,
      });
      expect([...page1, ...page2].map((call) => call.callId)).toEqual(
        calls.map((call) => call.callId),
      );
      expect(
        await store.providerCalls.list({ tenant: "u", conversationId: "other", limit: 10 }),
      ).toEqual([]);
    });

    it("keeps a call id recorded twice once, as first recorded", async () => {
      const { store } = fixture();
      const call = sampleCall();
      await store.providerCalls.record(call);
      await store.providerCalls.record({ ...call, outcome: "failed", durationMs: 1 });
      await (await fixture().open()).providerCalls.record(call);
      const calls = await store.providerCalls.list({ tenant: "t", conversationId: "c", limit: 10 });
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ outcome: "ok", durationMs: call.durationMs });
      expect(await fixture().rowCount("provider_calls")).toBe(1);
    });

    it("finds the last model call, skipping summariser calls, and a broken prefix's view", async () => {
      const { store } = fixture();
      expect(await store.providerCalls.lastModelCall({ tenant: "t", conversationId: "c" })).toBe(
        undefined,
      );
      const model = sampleCall();
      await store.providerCalls.record(model);
      await store.providerCalls.record(
        sampleCall({ kind: "summarizer", prefix: { status: "not-compared", historyItems: 1 } }),
      );
      await store.providerCalls.record(sampleCall({ tenant: "u" }));
      const last = await store.providerCalls.lastModelCall({ tenant: "t", conversationId: "c" });
      expect(last?.callId).toBe(model.callId);
      expect(last?.prefix).toEqual(model.prefix);
      const view = { tenant: "t", conversationId: "c", callId: model.callId };
      expect((await store.providerCalls.get(view))?.callId).toBe(model.callId);
      expect(await store.providerCalls.get({ ...view, conversationId: "other" })).toBeUndefined();
      expect(await store.providerCalls.divergenceView(view)).toBe(model.divergenceView);
      expect(await store.providerCalls.divergenceView({ ...view, tenant: "u" })).toBeUndefined();
      expect(await store.providerCalls.divergenceView({ ...view, callId: "nope" })).toBeUndefined();
    });

    it("sums a tenant's conversations by model, most recent first, paged by a cursor", async () => {
      const { store } = fixture();
      const usage = (input: number, cached: number, write = 0, write1h = 0) => ({
        inputTokens: input,
        cachedInputTokens: cached,
        cacheWriteTokens: write,
        ...(write1h === 0 ? {} : { cacheWrite1hTokens: write1h }),
        outputTokens: 10,
      });
      const at = 1_900_000_000_000;
      const records = [
        sampleCall({ conversationId: "a", startedAt: at, usage: usage(100, 0, 100, 40) }),
        sampleCall({ conversationId: "a", startedAt: at + 5, usage: usage(200, 100) }),
        sampleCall({
          conversationId: "a",
          startedAt: at + 6,
          provider: "openai-responses",
          model: "gpt-5",
          usage: usage(50, 0),
          prefix: { status: "extends", historyItems: 3 },
        }),
        sampleCall({
          conversationId: "a",
          startedAt: at + 7,
          outcome: "failed",
          usage: undefined,
          error: { code: "provider_error", message: "boom", retryable: false },
          prefix: { status: "extends", historyItems: 3 },
        }),
        sampleCall({ conversationId: "b", startedAt: at + 9, usage: usage(10, 5) }),
        sampleCall({ conversationId: "c", startedAt: at + 9, usage: usage(20, 5) }),
        sampleCall({ conversationId: "d", startedAt: at + 1, usage: usage(30, 5) }),
        sampleCall({ tenant: "u", conversationId: "a", startedAt: at + 100, usage: usage(1, 1) }),
      ];
      for (const record of records) await store.providerCalls.record(record);

      const first = await store.providerCalls.conversations({ tenant: "t", limit: 2 });
      expect(first.map((c) => c.conversationId)).toEqual(["b", "c"]);
      const second = await store.providerCalls.conversations({
        tenant: "t",
        limit: 2,
        after: { lastAt: first[1]!.lastAt, conversationId: first[1]!.conversationId },
      });
      expect(second.map((c) => c.conversationId)).toEqual(["a", "d"]);
      const a = second[0]!;
      expect(a).toEqual({
        conversationId: "a",
        firstAt: at,
        lastAt: at + 7,
        calls: 4,
        failedCalls: 1,
        brokenPrefixes: 2,
        byModel: [
          {
            provider: "anthropic",
            model: "claude-sonnet-4-5",
            calls: 3,
            inputTokens: 300,
            cachedInputTokens: 100,
            cacheWriteTokens: 100,
            cacheWrite1hTokens: 40,
            outputTokens: 20,
          },
          {
            provider: "openai-responses",
            model: "gpt-5",
            calls: 1,
            inputTokens: 50,
            cachedInputTokens: 0,
            cacheWriteTokens: 0,
            cacheWrite1hTokens: 0,
            outputTokens: 10,
          },
        ],
      });
      expect(
        await store.providerCalls.conversations({
          tenant: "t",
          limit: 2,
          after: { lastAt: at + 1, conversationId: "d" },
        }),
      ).toEqual([]);

      const totals = await store.providerCalls.totals({ tenant: "t" });
      expect(totals).toMatchObject({
        conversations: 4,
        calls: 7,
        failedCalls: 1,
        brokenPrefixes: 5,
        firstAt: at,
        lastAt: at + 9,
      });
      expect(totals.byModel.map((m) => [m.provider, m.model, m.calls, m.inputTokens])).toEqual([
        ["anthropic", "claude-sonnet-4-5", 6, 360],
        ["openai-responses", "gpt-5", 1, 50],
      ]);
      expect(await store.providerCalls.totals({ tenant: "nobody" })).toEqual({
        conversations: 0,
        calls: 0,
        failedCalls: 0,
        brokenPrefixes: 0,
        byModel: [],
      });
    });

    it("prunes calls started before the cutoff; another instance sees what is kept", async () => {
      const { store } = fixture();
      const at = 2_000_000_000_000;
      for (let i = 0; i < 5; i += 1) {
        await store.providerCalls.record(sampleCall({ startedAt: at + i * 1_000 }));
      }
      expect(await store.providerCalls.prune({ before: at + 2_000 })).toBe(2);
      expect(await store.providerCalls.prune({ before: at + 2_000 })).toBe(0);
      const other = await fixture().open();
      const kept = await other.providerCalls.list({ tenant: "t", conversationId: "c", limit: 10 });
      expect(kept.map((call) => call.startedAt)).toEqual([at + 2_000, at + 3_000, at + 4_000]);
      // Sequence numbers never go back: a cursor handed out before pruning stays valid.
      const lastSeq = kept.at(-1)!.seq;
      expect(await store.providerCalls.prune({ before: at + 10_000 })).toBe(3);
      await store.providerCalls.record(sampleCall({ startedAt: at + 20_000 }));
      const [next] = await store.providerCalls.list({
        tenant: "t",
        conversationId: "c",
        limit: 10,
        afterSeq: lastSeq,
      });
      expect(next!.seq).toBeGreaterThan(lastSeq);
    });
  });
}
