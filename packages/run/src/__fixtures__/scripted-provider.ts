import type { ModelRequest } from "../model-request.js";
import type { ProviderAdapter, ProviderEvent } from "../provider-adapter.js";
import type { Clock } from "../retry-policy.js";

/**
 * One scripted provider call: yields `events`, then throws `error` if given, or (with `hang`)
 * waits until the call's abort signal fires, ignoring it otherwise (to prove the loop does not
 * depend on the provider honouring the signal).
 */
export interface ScriptedCall {
  readonly events?: readonly ProviderEvent[];
  readonly error?: Error;
  readonly hang?: boolean;
}

export interface ScriptedProvider extends ProviderAdapter<ModelRequest> {
  /** Every request the provider was called with, in order. */
  readonly requests: ModelRequest[];
  /** Calls not consumed yet. */
  readonly remaining: () => number;
}

/** A provider that plays `script` one call at a time and records what it was asked. */
export function scriptedProvider(
  script: readonly ScriptedCall[],
  id = "scripted",
): ScriptedProvider {
  const queue = [...script];
  const requests: ModelRequest[] = [];
  return {
    id,
    requests,
    remaining: () => queue.length,
    serialize: (request) => ({ body: request, warnings: [] }),
    stream(request, options) {
      requests.push(request);
      const call = queue.shift();
      if (call === undefined) throw new Error("scripted provider: no call left in the script");
      return (async function* () {
        for (const event of call.events ?? []) {
          await Promise.resolve();
          yield event;
        }
        if (call.error) throw call.error;
        if (call.hang) {
          // Never settles: only the loop's own abort handling can end this call.
          await new Promise<never>(() => options?.signal);
        }
      })();
    },
  };
}

/** Events of a complete final answer. */
export function answer(text: string, inputTokens = 100): ProviderEvent[] {
  return [
    { type: "text-delta", text },
    {
      type: "usage",
      usage: { inputTokens, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 5 },
    },
    { type: "finish", reason: "stop" },
  ];
}

/** A clock that records every requested delay and returns at once. */
export function fakeClock(): Clock & { readonly sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep(ms, signal) {
      sleeps.push(ms);
      return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
    },
  };
}
