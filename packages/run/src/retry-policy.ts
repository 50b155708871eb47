import { RateLimitError } from "./errors.js";
import type { ProviderError } from "./errors.js";

/** Backoff for transient provider errors (`ProviderError.retryable`). */
export interface RetryPolicy {
  /** Attempts in total, the first included (1 disables retries). */
  readonly maxAttempts: number;
  /** Delay before the first retry; doubles with each further retry. */
  readonly baseDelayMs: number;
  /** Upper bound of a computed backoff delay. */
  readonly maxDelayMs: number;
  /** A provider's retry-after longer than this fails the call instead of holding the client. */
  readonly maxRetryAfterMs: number;
  /** Source of jitter in [0, 1); injectable for deterministic tests. */
  readonly random?: () => number;
}

export const defaultRetryPolicy: RetryPolicy = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
});

/** Sleeping port of the model loop; tests pass a fake that records delays and returns at once. */
export interface Clock {
  /** Resolves after `ms`, or rejects as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = Object.freeze({
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
});

/**
 * The delay before retry number `retry` (1 for the first retry) of `error`, or `undefined` when
 * it must not be retried. A rate limit's retry-after is honoured exactly (the provider said when);
 * otherwise exponential backoff with "equal jitter": half fixed, half random.
 */
export function retryDelayMs({
  error,
  retry,
  policy,
}: {
  error: ProviderError;
  retry: number;
  policy: RetryPolicy;
}): number | undefined {
  if (!error.retryable || retry >= policy.maxAttempts) return undefined;
  if (RateLimitError.isInstance(error) && error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs
      ? Math.max(0, error.retryAfterMs)
      : undefined;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const random = policy.random ?? Math.random;
  return Math.round(exponential / 2 + (exponential / 2) * random());
}
