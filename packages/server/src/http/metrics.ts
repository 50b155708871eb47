import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { cacheKinds } from "../cache/cache-ledger.js";
import type { CacheLedgerStats } from "../cache/cache-ledger.js";

/** Seconds: a provider call from the gateway's request to the stream's end. */
const callDurationBuckets = [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60, 120, 300];
/** Seconds: a provider call's first output (text, reasoning or a tool call). */
const firstTokenBuckets = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 8, 13, 30];
/** Seconds: the gateway's own time around a provider call (see the server README). */
const overheadBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const callLabels = ["provider", "model"] as const;

/** Every metric the gateway exports (the server README documents each). */
const definitions = {
  cursor_gateway_http_requests_total: {
    type: "counter",
    help: "HTTP requests by route and status",
    labels: ["route", "status"],
  },
  cursor_gateway_runs_total: { type: "counter", help: "Runs by end reason", labels: ["reason"] },
  cursor_gateway_provider_calls_total: {
    type: "counter",
    help: "Provider calls (model and summariser calls) by provider, catalog model and outcome (ok, failed, cancelled)",
    labels: [...callLabels, "outcome"],
  },
  cursor_gateway_input_tokens_total: {
    type: "counter",
    help: "Input tokens providers reported (cached and cache-write ones included)",
    labels: callLabels,
  },
  cursor_gateway_cached_input_tokens_total: {
    type: "counter",
    help: "Input tokens providers served from their prefix cache",
    labels: callLabels,
  },
  cursor_gateway_cache_write_tokens_total: {
    type: "counter",
    help: "Input tokens written to the provider's prefix cache, by cache lifetime (5m, 1h)",
    labels: [...callLabels, "ttl"],
  },
  cursor_gateway_output_tokens_total: {
    type: "counter",
    help: "Output tokens providers reported",
    labels: callLabels,
  },
  cursor_gateway_compactions_total: {
    type: "counter",
    help: "Compactions by reason",
    labels: ["reason"],
  },
  cursor_gateway_connections_rejected_total: {
    type: "counter",
    help: "Connections closed on accept, by reason (a client over its connection cap)",
    labels: ["reason"],
  },
  cursor_gateway_connection_timeouts_total: {
    type: "counter",
    help: "Connections closed because nothing moved on them for the idle timeout",
    labels: ["kind"],
  },
  cursor_gateway_cache_evictions_total: {
    type: "counter",
    help: "Entries the in-memory caches evicted to stay within CURSOR_GATEWAY_CACHE_BYTES, by kind (head, checkpoint, provider-request, prompt-spec)",
    labels: ["kind"],
  },
  cursor_gateway_usage_records_pruned_total: {
    type: "counter",
    help: "Usage records deleted by the retention setting (CURSOR_GATEWAY_USAGE_RETENTION_DAYS)",
    labels: [],
  },
  cursor_gateway_provider_call_duration_seconds: {
    type: "histogram",
    help: "Provider call duration: from handing the request to the provider package to the end of its stream",
    labels: [...callLabels, "outcome"],
    buckets: callDurationBuckets,
  },
  cursor_gateway_time_to_first_token_seconds: {
    type: "histogram",
    help: "Time to first token: from handing the request to the provider package to its first text, reasoning or tool-call event",
    labels: callLabels,
    buckets: firstTokenBuckets,
  },
  cursor_gateway_overhead_seconds: {
    type: "histogram",
    help: "Gateway overhead per provider call: the gateway's own time before the call (from the request or the previous call) and after it (until its result is stored)",
    labels: callLabels,
    buckets: overheadBuckets,
  },
} as const;

type Definitions = typeof definitions;
type NameOf<Type extends string> = {
  [Name in keyof Definitions]: Definitions[Name]["type"] extends Type ? Name : never;
}[keyof Definitions];
export type CounterName = NameOf<"counter">;
export type HistogramName = NameOf<"histogram">;
type Labels<Name extends keyof Definitions> = Partial<
  Record<Definitions[Name]["labels"][number], string>
>;

/**
 * The gateway's Prometheus metrics on a registry of its own (several gateways in one process keep
 * theirs apart): the counters and histograms above, `cursor_gateway_active_runs`, and the
 * process metrics prom-client collects (`process_*`, `nodejs_*`). prom-client writes the text
 * format, label values escaped.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly #counters = new Map<string, Counter>();
  readonly #histograms = new Map<string, Histogram>();

  constructor({
    processMetrics = true,
    activeRuns,
    cache,
  }: {
    /** `process_*` and `nodejs_*` (CPU, memory, event-loop lag, GC, handles). */
    processMetrics?: boolean;
    /** Runs in progress in this process, read on every scrape. */
    activeRuns?: () => number;
    /** What the in-memory caches hold against their budget, read on every scrape. */
    cache?: () => CacheLedgerStats | undefined;
  } = {}) {
    for (const [name, definition] of Object.entries(definitions)) {
      const common = {
        name,
        help: definition.help,
        labelNames: [...definition.labels],
        registers: [this.registry],
      };
      if (definition.type === "counter") this.#counters.set(name, new Counter(common));
      else
        this.#histograms.set(name, new Histogram({ ...common, buckets: [...definition.buckets] }));
    }
    new Gauge({
      name: "cursor_gateway_active_runs",
      help: "Runs in progress in this process",
      registers: [this.registry],
      collect() {
        this.set(activeRuns?.() ?? 0);
      },
    });
    new Gauge({
      name: "cursor_gateway_cache_bytes",
      help: "Estimated bytes the in-memory caches hold, by kind (head, checkpoint, provider-request, prompt-spec)",
      labelNames: ["kind"],
      registers: [this.registry],
      collect() {
        const stats = cache?.();
        for (const kind of cacheKinds) this.set({ kind }, stats?.kinds[kind].bytes ?? 0);
      },
    });
    new Gauge({
      name: "cursor_gateway_cache_budget_bytes",
      help: "The in-memory caches' byte budget (CURSOR_GATEWAY_CACHE_BYTES)",
      registers: [this.registry],
      collect() {
        this.set(cache?.()?.maxBytes ?? 0);
      },
    });
    if (processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  increment<Name extends CounterName>(name: Name, labels: Labels<Name> = {}, by = 1): void {
    const counter = this.#counters.get(name);
    if (counter === undefined) throw new Error(`unknown metric ${name}`);
    if (by < 0 || !Number.isFinite(by)) throw new RangeError(`${name}: cannot add ${by}`);
    counter.inc(labels as Record<string, string>, by);
  }

  observe<Name extends HistogramName>(name: Name, labels: Labels<Name>, seconds: number): void {
    const histogram = this.#histograms.get(name);
    if (histogram === undefined) throw new Error(`unknown metric ${name}`);
    if (!Number.isFinite(seconds) || seconds < 0) return;
    histogram.observe(labels as Record<string, string>, seconds);
  }

  /** The Prometheus text exposition (`contentType`). */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
