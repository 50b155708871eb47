import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
} from "./errors.js";
import { defaultRetryPolicy, retryDelayMs, systemClock } from "./retry-policy.js";

const server = new ProviderServerError({ providerId: "p", message: "x" });

describe("retryDelayMs", () => {
  it("doubles the backoff per retry with equal jitter, capped", () => {
    const at = (random: number) => (retry: number) =>
      retryDelayMs({
        error: server,
        retry,
        policy: { ...defaultRetryPolicy, maxAttempts: 10, random: () => random },
      });
    expect([1, 2, 3, 4, 5, 6].map(at(0))).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5, 6].map(at(0.999999))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it("honours retry-after exactly, within its bound", () => {
    const limited = (retryAfterMs: number | undefined) =>
      new RateLimitError({
        providerId: "p",
        message: "429",
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    const policy = { ...defaultRetryPolicy, random: () => 0 };
    expect(retryDelayMs({ error: limited(2_500), retry: 1, policy })).toBe(2_500);
    expect(retryDelayMs({ error: limited(60_000), retry: 1, policy })).toBe(60_000);
    expect(retryDelayMs({ error: limited(60_001), retry: 1, policy })).toBeUndefined();
    expect(retryDelayMs({ error: limited(undefined), retry: 1, policy })).toBe(250);
  });

  it("stops at maxAttempts and never retries non-transient errors", () => {
    const policy = { ...defaultRetryPolicy, maxAttempts: 3, random: () => 0 };
    const network = new NetworkError({ providerId: "p", message: "reset" });
    expect(retryDelayMs({ error: network, retry: 2, policy })).toBe(500);
    expect(retryDelayMs({ error: network, retry: 3, policy })).toBeUndefined();
    const auth = new AuthenticationError({ providerId: "p", message: "401" });
    expect(retryDelayMs({ error: auth, retry: 1, policy })).toBeUndefined();
  });
});

describe("systemClock", () => {
  it("sleeps and rejects with the abort reason when aborted", async () => {
    await expect(systemClock.sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const sleeping = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    await expect(systemClock.sleep(1, controller.signal)).rejects.toThrow("stop");
  });
});
