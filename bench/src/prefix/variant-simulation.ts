import type { ProviderAdapter } from "@cursor/run";
import { PrefixCacheSimulator, firstDivergence, formatDivergence } from "@cursor/testkit";
import type { CacheTotals, PrefixCacheResult } from "@cursor/testkit";
import type { SessionCall } from "../harness/drive-session.js";
import type { BenchProvider } from "../harness/gateway-harness.js";
import { projectVariant } from "./projection-variants.js";
import type { ProjectionVariant } from "./projection-variants.js";
import { renderBody } from "./render-body.js";

/** One call's verdict under one projection. */
export interface VariantCallResult {
  readonly index: number;
  readonly compaction: boolean;
  readonly summarizer: boolean;
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly bestPossibleCachedTokens: number;
}

export interface VariantTotals extends CacheTotals {
  /** Σ cached ÷ Σ best possible over calls that are not part of a compaction. */
  readonly prefixEfficiencyOutsideCompaction: number;
}

/**
 * Prices one projection of a session: every model call is re-projected from the canonical
 * messages the gateway's call saw, serialised by the same provider package, rendered as the fake
 * provider renders it and fed to a `PrefixCacheSimulator` of its own at the same clock. The
 * gateway's summariser calls are fed unchanged (every projection compacts the same way).
 */
export class VariantSimulation {
  readonly variant: ProjectionVariant;
  readonly provider: BenchProvider;
  readonly calls: VariantCallResult[] = [];
  readonly #adapter: ProviderAdapter;
  readonly #simulator: PrefixCacheSimulator;
  #now = 0;

  constructor({
    variant,
    provider,
    adapter,
  }: {
    variant: ProjectionVariant;
    provider: BenchProvider;
    adapter: ProviderAdapter;
  }) {
    this.variant = variant;
    this.provider = provider;
    this.#adapter = adapter;
    this.#simulator = new PrefixCacheSimulator({ clock: () => this.#now });
  }

  /** The body this projection sends for `call`. */
  bodyFor(call: SessionCall): Record<string, unknown> {
    if (call.summarizer || call.messages === undefined) return call.body;
    const request = projectVariant({
      variant: this.variant,
      messages: call.messages,
      request: call.request,
      promptContext: call.promptContext,
      model: String(call.body.model),
    });
    return this.#adapter.serialize(request).body as Record<string, unknown>;
  }

  add(call: SessionCall): PrefixCacheResult {
    this.#now = call.at;
    const rendered = renderBody(this.provider, this.bodyFor(call));
    const result =
      rendered.mode === "openai"
        ? this.#simulator.simulateOpenAI({
            namespace: rendered.namespace,
            segments: rendered.segments,
          })
        : this.#simulator.simulateAnthropic({
            namespace: rendered.namespace,
            segments: rendered.segments,
          });
    this.calls.push({
      index: call.index,
      compaction: call.compaction,
      summarizer: call.summarizer,
      inputTokens: result.inputTokens,
      cachedTokens: result.cachedTokens,
      bestPossibleCachedTokens: result.bestPossibleCachedTokens,
    });
    return result;
  }

  totals(): VariantTotals {
    const outside = this.calls.filter((call) => !call.compaction);
    const cached = outside.reduce((sum, call) => sum + call.cachedTokens, 0);
    const best = outside.reduce((sum, call) => sum + call.bestPossibleCachedTokens, 0);
    return {
      ...this.#simulator.stats().total,
      prefixEfficiencyOutsideCompaction: best === 0 ? 1 : cached / best,
    };
  }
}

/**
 * Checks that re-projecting a call the `ours` way gives the bytes the provider received (what
 * makes the baselines comparable): the first difference, or null when the rendered prompts agree.
 */
export function reprojectionMismatch({
  provider,
  call,
  body,
}: {
  provider: BenchProvider;
  call: SessionCall;
  body: Record<string, unknown>;
}): string | null {
  const sent = renderBody(provider, call.body);
  const rebuilt = renderBody(provider, body);
  if (sent.namespace !== rebuilt.namespace) {
    return `namespace: ${sent.namespace} → ${rebuilt.namespace}`;
  }
  const left = sent.segments.map((segment) => segment.bytes);
  const right = rebuilt.segments.map((segment) => segment.bytes);
  if (left.length === right.length && left.every((bytes, i) => bytes === right[i])) return null;
  const divergence = firstDivergence(call.body, body);
  return divergence === null ? "segments differ" : formatDivergence(divergence);
}
