/** Counters for `GET /metrics` in the Prometheus text format. */
export class GatewayMetrics {
  readonly #counters = new Map<string, { help: string; values: Map<string, number> }>();

  constructor() {
    this.#define("cursor_gateway_http_requests_total", "HTTP requests by route and status");
    this.#define("cursor_gateway_runs_total", "Runs by end reason");
    this.#define("cursor_gateway_provider_calls_total", "Provider calls by provider and outcome");
    this.#define(
      "cursor_gateway_input_tokens_total",
      "Input tokens sent to providers (cached included)",
    );
    this.#define(
      "cursor_gateway_cached_input_tokens_total",
      "Input tokens the provider served from its cache",
    );
    this.#define(
      "cursor_gateway_cache_write_tokens_total",
      "Input tokens written to the provider cache",
    );
    this.#define("cursor_gateway_output_tokens_total", "Output tokens produced by providers");
    this.#define("cursor_gateway_compactions_total", "Compactions by reason");
    this.#define(
      "cursor_gateway_connections_rejected_total",
      "Connections closed on accept, by reason (a client over its connection cap)",
    );
    this.#define(
      "cursor_gateway_connection_timeouts_total",
      "Connections closed because nothing moved on them for the idle timeout",
    );
  }

  #define(name: string, help: string): void {
    this.#counters.set(name, { help, values: new Map() });
  }

  increment(name: string, labels: Record<string, string> = {}, by = 1): void {
    const counter = this.#counters.get(name);
    if (counter === undefined) throw new Error(`unknown metric ${name}`);
    const key = Object.keys(labels)
      .sort()
      .map((label) => `${label}="${labels[label]!.replace(/["\\\n]/g, "_")}"`)
      .join(",");
    counter.values.set(key, (counter.values.get(key) ?? 0) + by);
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, counter] of this.#counters) {
      lines.push(`# HELP ${name} ${counter.help}`, `# TYPE ${name} counter`);
      if (counter.values.size === 0) lines.push(`${name} 0`);
      for (const [labels, value] of [...counter.values].sort(([a], [b]) => a.localeCompare(b))) {
        lines.push(`${name}${labels === "" ? "" : `{${labels}}`} ${value}`);
      }
    }
    return `${lines.join("\n")}\n`;
  }
}
