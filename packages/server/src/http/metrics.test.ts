import { afterAll, describe, expect, it } from "vitest";
import { temporaryFolders } from "../e2e/e2e-environment.js";
import { userTurn } from "../e2e/e2e-helpers.js";
import { startInProcessGateway } from "../e2e/in-process-gateway.js";
import { startScriptedProvider } from "../e2e/scripted-provider.js";
import { runEnded, streamRun } from "../e2e/sse-run.js";
import { parsePrometheusText, sampleValue } from "./__fixtures__/prometheus-text.js";
import type { MetricFamily } from "./__fixtures__/prometheus-text.js";
import { GatewayMetrics } from "./metrics.js";

const folders = temporaryFolders("metrics");
afterAll(() => folders.removeAll());

/** A histogram's buckets are cumulative, end with +Inf, and +Inf equals its count. */
function checkHistogram(family: MetricFamily, labels: Record<string, string>): number {
  const matches = (sample: { labels: Record<string, string> }) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
  const buckets = family.samples.filter((s) => s.name.endsWith("_bucket") && matches(s));
  const bounds = buckets.map((bucket) =>
    Number(bucket.labels.le === "+Inf" ? Infinity : bucket.labels.le),
  );
  expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
  expect(bounds.at(-1)).toBe(Infinity);
  const counts = buckets.map((bucket) => bucket.value);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  const count = family.samples.find((s) => s.name.endsWith("_count") && matches(s))!.value;
  expect(counts.at(-1)).toBe(count);
  return count;
}

describe("GatewayMetrics", () => {
  it("writes a valid exposition with escaped label values, histograms and process metrics", async () => {
    const metrics = new GatewayMetrics({ activeRuns: () => 3 });
    const awkward = 'team "a"\\b\nnext line';
    metrics.increment("cursor_gateway_provider_calls_total", {
      provider: "anthropic",
      model: awkward,
      outcome: "ok",
    });
    metrics.increment(
      "cursor_gateway_provider_calls_total",
      { provider: "anthropic", model: awkward, outcome: "ok" },
      2,
    );
    for (const seconds of [0.05, 0.4, 4, 400]) {
      metrics.observe(
        "cursor_gateway_provider_call_duration_seconds",
        { provider: "anthropic", model: awkward, outcome: "ok" },
        seconds,
      );
    }
    const text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(text);
    expect(sampleValue(families, "cursor_gateway_provider_calls_total", { model: awkward })).toBe(
      3,
    );
    const duration = families.get("cursor_gateway_provider_call_duration_seconds")!;
    expect(duration.type).toBe("histogram");
    expect(checkHistogram(duration, { model: awkward })).toBe(4);
    expect(
      sampleValue(families, "cursor_gateway_provider_call_duration_seconds_bucket", {
        model: awkward,
        le: "0.5",
      }),
    ).toBe(2);
    expect(
      sampleValue(families, "cursor_gateway_provider_call_duration_seconds_sum", {
        model: awkward,
      }),
    ).toBeCloseTo(404.45, 9);
    expect(sampleValue(families, "cursor_gateway_active_runs")).toBe(3);
    // Process metrics.
    expect(families.get("process_cpu_user_seconds_total")?.type).toBe("counter");
    expect(families.get("nodejs_heap_size_total_bytes")?.type).toBe("gauge");
    expect(families.get("nodejs_eventloop_lag_seconds")).toBeDefined();
    // Every family the gateway defines is documented by its HELP and typed.
    for (const family of families.values()) {
      expect(family.help, family.name).toBeTruthy();
      expect(family.type, family.name).toBeTruthy();
    }
  });

  it("refuses unknown metrics and negative increments", () => {
    const metrics = new GatewayMetrics({ processMetrics: false });
    expect(() =>
      metrics.increment("cursor_gateway_nope_total" as "cursor_gateway_runs_total", {}),
    ).toThrow(/unknown metric/);
    expect(() => metrics.increment("cursor_gateway_runs_total", { reason: "x" }, -1)).toThrow(
      RangeError,
    );
  });
});

describe("GET /metrics of a gateway", () => {
  it(
    "counts provider calls and tokens as reported and times every call",
    { timeout: 60_000 },
    async () => {
      const provider = await startScriptedProvider();
      // A model id with a quote and a backslash: allowed in ids, escaped in the exposition.
      const model = 'gpt-5"team\\a';
      const gateway = await startInProcessGateway({
        provider,
        dataDir: folders.create(),
        extra: { CURSOR_GATEWAY_MODEL: model },
      });
      try {
        for (const turn of [1, 2]) {
          provider.reply = { type: "text", text: `Answer ${turn}.` };
          const result = await streamRun(gateway.url, userTurn({ conversationId: "m-1", turn }));
          expect(runEnded(result.events)).toEqual({ reason: "completed" });
        }
        const response = await fetch(`${gateway.url}/metrics`);
        expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
        const families = parsePrometheusText(await response.text());
        // The catalog id of the single-provider model (`byok/<provider model>`).
        const labels = { provider: "openai-responses", model: `byok/${model}` };
        expect(
          sampleValue(families, "cursor_gateway_provider_calls_total", {
            ...labels,
            outcome: "ok",
          }),
        ).toBe(2);
        const sum = (field: "inputTokens" | "cachedInputTokens" | "outputTokens") =>
          provider.fake.requests.reduce((total, request) => total + request.usage![field], 0);
        expect(sampleValue(families, "cursor_gateway_input_tokens_total", labels)).toBe(
          sum("inputTokens"),
        );
        expect(sampleValue(families, "cursor_gateway_cached_input_tokens_total", labels)).toBe(
          sum("cachedInputTokens"),
        );
        expect(sampleValue(families, "cursor_gateway_output_tokens_total", labels)).toBe(
          sum("outputTokens"),
        );
        expect(sum("cachedInputTokens")).toBeGreaterThan(0);
        for (const name of [
          "cursor_gateway_provider_call_duration_seconds",
          "cursor_gateway_time_to_first_token_seconds",
          "cursor_gateway_overhead_seconds",
        ]) {
          expect(checkHistogram(families.get(name)!, labels), name).toBe(2);
        }
        expect(sampleValue(families, "cursor_gateway_runs_total", { reason: "completed" })).toBe(2);
        expect(
          sampleValue(families, "cursor_gateway_http_requests_total", {
            route: "/v1/runs",
            status: "200",
          }),
        ).toBe(2);
      } finally {
        await gateway.close();
        await provider.fake.close();
      }
    },
  );
});
