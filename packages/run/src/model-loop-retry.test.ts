import { describe, expect, it } from "vitest";
import { harness, historyWithOneTurn, turn } from "./__fixtures__/loop-fixtures.js";
import { answer, fakeClock, scriptedProvider } from "./__fixtures__/scripted-provider.js";
import { NetworkError, ProviderServerError, RateLimitError } from "./errors.js";
import { HistoryLog } from "./history-log.js";
import { runModelLoop } from "./model-loop.js";

const usage = { inputTokens: 120, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 9 };

describe("runModelLoop: cancellation commits nothing", () => {
  it("cancels mid-stream even when the provider ignores the signal", async () => {
    const history = historyWithOneTurn();
    const head = history.headDigest;
    const controller = new AbortController();
    const provider = scriptedProvider([
      { events: [{ type: "text-delta", text: "Hel" }], hang: true },
    ]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop({
      ...options({ runId: "r1", pending: [turn("m1")], signal: controller.signal }),
      onEvent: () => controller.abort(),
    });
    expect(outcome).toEqual({ reason: "cancelled", appended: [], compactions: [] });
    expect(commits).toEqual([]);
    expect(history.headDigest).toBe(head);
  });

  it("cancels during a retry wait and before the first call", async () => {
    const history = new HistoryLog();
    const controller = new AbortController();
    const provider = scriptedProvider([
      { error: new NetworkError({ providerId: "scripted", message: "reset" }) },
    ]);
    const { commits, options } = harness(history, provider);
    const outcome = await runModelLoop({
      ...options({ runId: "r1", pending: [turn("m1")], signal: controller.signal }),
      clock: { sleep: (_ms, signal) => (controller.abort(), Promise.reject(signal?.reason)) },
    });
    expect(outcome.reason).toBe("cancelled");
    const again = await runModelLoop(
      options({ runId: "r1", pending: [turn("m1")], signal: controller.signal }),
    );
    expect(again.reason).toBe("cancelled");
    expect(provider.requests).toHaveLength(1);
    expect(commits).toEqual([]);
  });
});

describe("runModelLoop: retries", () => {
  it("retries 429 after retry-after and a 500 with jittered backoff, sending the same request", async () => {
    const history = historyWithOneTurn();
    const clock = fakeClock();
    const provider = scriptedProvider([
      {
        error: new RateLimitError({ providerId: "scripted", message: "slow", retryAfterMs: 1234 }),
      },
      { error: new ProviderServerError({ providerId: "scripted", message: "oops" }) },
      { events: [{ type: "usage", usage }] }, // cut before its finish event
      { events: answer("ok") },
    ]);
    const { commits, events, options } = harness(history, provider);
    const outcome = await runModelLoop(
      options({ runId: "r1", pending: [turn("m1")], clock, retry: { random: () => 0.5 } }),
    );
    expect(outcome.reason).toBe("completed");
    // retry 1 honours retry-after; retry 2: 500·2 = 1000 → 500 + 500·0.5; retry 3: 2000 → 1500.
    expect(clock.sleeps).toEqual([1234, 750, 1500]);
    expect(events.filter((e) => e.type === "retry").map((e) => e.data)).toEqual([
      {
        attempt: 1,
        delayMs: 1234,
        error: { code: "rate_limited", message: "slow", retryable: true },
      },
      {
        attempt: 2,
        delayMs: 750,
        error: { code: "provider_error", message: "oops", retryable: true },
      },
      {
        attempt: 3,
        delayMs: 1500,
        error: {
          code: "provider_unavailable",
          message: "the provider stream ended without a finish event",
          retryable: true,
        },
      },
    ]);
    const bodies = provider.requests.map((request) => JSON.stringify(request));
    expect(new Set(bodies).size).toBe(1);
    expect(commits).toHaveLength(1);
    expect(history.messages.map((m) => m.id).slice(-2)).toEqual([
      "runtime:turn.m1",
      "assistant:r1:0",
    ]);
  });

  it("gives up after maxAttempts and on a retry-after beyond maxRetryAfterMs", async () => {
    const clock = fakeClock();
    const server = () => ({ error: new ProviderServerError({ providerId: "p", message: "x" }) });
    const provider = scriptedProvider([server(), server(), server()]);
    const { commits, options } = harness(new HistoryLog(), provider);
    const bounded = await runModelLoop(
      options({ runId: "r1", pending: [turn("m1")], clock, retry: { maxAttempts: 2 } }),
    );
    expect(bounded.reason).toBe("failed");
    expect(provider.requests).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);

    const tooLong = scriptedProvider([
      { error: new RateLimitError({ providerId: "p", message: "later", retryAfterMs: 120_000 }) },
    ]);
    const outcome = await runModelLoop({
      ...options({ runId: "r1", pending: [turn("m1")], clock }),
      provider: tooLong,
    });
    expect(outcome.error?.code).toBe("rate_limited");
    expect(clock.sleeps).toHaveLength(1);
    expect(commits).toEqual([]);
  });
});
