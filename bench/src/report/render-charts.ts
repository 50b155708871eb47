import { renderBarChart } from "../charts/bar-chart.js";
import { renderLineChart } from "../charts/line-chart.js";
import type { BenchResults } from "../bench-results.js";
import { inputDollars, inputPrices } from "../cost/input-prices.js";
import { growthProviders } from "../growth/turn-cost-growth.js";
import { providerLabels } from "../harness/provider-adapters.js";
import { projectionVariants, variantLabels } from "../prefix/projection-variants.js";
import type { PrefixEfficiencyResult } from "../prefix/prefix-efficiency.js";
import type { VariantTotals } from "../prefix/variant-simulation.js";
import { bytes, dollars, milliseconds, percent, ratio } from "./format.js";

export interface ChartFile {
  readonly file: string;
  readonly title: string;
  readonly svg: string;
}

const historyTicks = (marks: readonly number[]) =>
  marks.map((mark) => ({ value: mark, label: mark.toLocaleString("en-US") }));

/** Every chart of the report, rendered from the results alone. */
export function renderCharts(results: BenchResults): ChartFile[] {
  const charts: ChartFile[] = [];
  const providers = results.prefix.map((p) => providerLabels[p.provider]);

  if (results.prefix.length > 0) {
    const title = "Prefix efficiency: Σ cached ÷ Σ best possible cached tokens";
    charts.push({
      file: "prefix-efficiency.svg",
      title,
      svg: renderBarChart({
        title,
        groups: providers,
        series: projectionVariants.map((variant) => ({
          label: variantLabels[variant],
          values: results.prefix.map((p) => p.variants[variant].prefixEfficiency),
        })),
        format: (v) => percent(v, 1),
        tickFormat: (v) => percent(v, 0),
        axisLabel: `${results.settings.sessionTurns}-turn generated session through the gateway; same canonical histories re-projected`,
        reference: { value: 1, label: "physical limit" },
        max: 1,
      }),
    });
    for (const result of results.prefix) {
      const calls = result.variantCalls.ours.map((call) => call.index);
      const callTitle = `${providerLabels[result.provider]}: cached share of each call's input`;
      charts.push({
        file: `cached-per-call-${result.provider}.svg`,
        title: callTitle,
        svg: renderLineChart({
          title: callTitle,
          x: calls,
          xScale: "linear",
          xTicks: callTicks(calls.length),
          xLabel: "provider call",
          yLabel: "cached ÷ input",
          series: projectionVariants.map((variant) => ({
            label: variantLabels[variant],
            values: result.variantCalls[variant].map((call) =>
              call.inputTokens === 0 ? null : call.cachedTokens / call.inputTokens,
            ),
            ...(variant === "no-dedup" ? { dashed: true } : {}),
          })),
          format: (v) => percent(v, 0),
          yMax: 1,
          width: 900,
        }),
      });
    }
    const costTitle = "Simulated input cost of the session at list prices";
    charts.push({
      file: "input-cost.svg",
      title: costTitle,
      svg: renderBarChart({
        title: costTitle,
        groups: results.prefix.map(
          (p) => `${providerLabels[p.provider]} (${inputPrices[p.provider].model})`,
        ),
        series: [
          ...projectionVariants.map((variant) => ({
            label: variantLabels[variant],
            values: results.prefix.map((p) => sessionDollars(p, p.variants[variant])),
          })),
          {
            label: "every token uncached",
            values: results.prefix.map(
              (p) => (p.measured.inputTokens * inputPrices[p.provider].input) / 1_000_000,
            ),
          },
        ],
        format: (v) => dollars(v),
        tickFormat: (v) => `$${v}`,
        axisLabel: "USD for the session's input tokens (cached 0.1×, Anthropic cache writes 1.25×)",
      }),
    });
  }

  if (results.growth.length > 0) {
    const marks = results.growth.map((row) => row.historyTurns);
    const ratioTitle = "Per-call work ÷ JSON.stringify of the same body";
    charts.push({
      file: "turn-cost-ratio.svg",
      title: ratioTitle,
      svg: renderLineChart({
        title: ratioTitle,
        x: marks,
        xScale: "log",
        xTicks: historyTicks(marks),
        xLabel: "user turns of history (log scale)",
        yLabel: "(prepare + append + project + serialise) ÷ stringify",
        series: growthProviders.map((provider) => ({
          label: providerLabels[provider],
          values: results.growth.map((row) => row.ratio[provider]),
          markers: true,
        })),
        format: (v) => ratio(v),
        references: [{ value: 1.5, label: "target 1.5×" }],
      }),
    });
    const msTitle = "Per-call time by step (OpenAI Responses serialiser)";
    charts.push({
      file: "turn-cost-ms.svg",
      title: msTitle,
      svg: renderLineChart({
        title: msTitle,
        x: marks,
        xScale: "log",
        xTicks: historyTicks(marks),
        xLabel: "user turns of history (log scale)",
        yLabel: "milliseconds (median)",
        series: [
          { label: "prepareTurn", values: results.growth.map((r) => r.prepareMs), markers: true },
          { label: "append", values: results.growth.map((r) => r.appendMs), markers: true },
          {
            label: "toModelRequest",
            values: results.growth.map((r) => r.projectMs),
            markers: true,
          },
          {
            label: "serialize",
            values: results.growth.map((r) => r.serializeMs["openai-responses"]),
            markers: true,
          },
          {
            label: "JSON.stringify (floor)",
            values: results.growth.map((r) => r.stringifyMs["openai-responses"]),
            markers: true,
            dashed: true,
          },
        ],
        format: (v) => milliseconds(v),
      }),
    });
    const writesTitle = "Bytes written per request";
    charts.push({
      file: "writes-per-request.svg",
      title: writesTitle,
      svg: renderLineChart({
        title: writesTitle,
        x: marks,
        xScale: "log",
        xTicks: historyTicks(marks),
        xLabel: "user turns of history (log scale)",
        yLabel: "bytes per request (mean)",
        series: [
          {
            label: "checkpoint (writeCheckpoint)",
            values: results.growth.map((r) => r.checkpointBytes),
            markers: true,
          },
          {
            label: "SQLite store commit",
            values: results.growth.map((r) => r.storeBytes),
            markers: true,
          },
          {
            label: "new content (canonical JSON)",
            values: results.growth.map((r) => r.newContentBytes),
            markers: true,
            dashed: true,
          },
        ],
        format: (v) => bytes(v),
      }),
    });
  }

  if (results.overhead.length > 0) {
    const title = "Latency added per call: the gateway vs a bare pass-through proxy";
    charts.push({
      file: "gateway-overhead.svg",
      title,
      svg: renderBarChart({
        title,
        groups: results.overhead.map(
          (row) => `${row.historyTurns.toLocaleString("en-US")} turns, ${row.concurrency} at once`,
        ),
        series: [
          {
            label: "gateway added p50",
            values: results.overhead.map((r) => r.gateway.addedEnd.p50),
          },
          {
            label: "gateway added p99",
            values: results.overhead.map((r) => r.gateway.addedEnd.p99),
          },
          { label: "proxy added p50", values: results.overhead.map((r) => r.proxy.addedEnd.p50) },
          { label: "proxy added p99", values: results.overhead.map((r) => r.proxy.addedEnd.p99) },
        ],
        format: (v) => milliseconds(v),
        axisLabel: "ms added per provider call over calling the fake provider directly",
      }),
    });
  }

  return charts;
}

/** The session's input in dollars at the provider's list prices. */
export function sessionDollars(result: PrefixEfficiencyResult, totals: VariantTotals): number {
  return inputDollars({
    prices: inputPrices[result.provider],
    inputTokens: totals.inputTokens,
    cachedTokens: totals.cachedTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
  });
}

function callTicks(calls: number): { value: number; label: string }[] {
  const step = calls > 400 ? 100 : calls > 100 ? 50 : 10;
  const ticks: { value: number; label: string }[] = [];
  for (let value = 0; value < calls; value += step) ticks.push({ value, label: String(value) });
  return ticks;
}
