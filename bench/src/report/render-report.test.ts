import { describe, expect, it } from "vitest";
import { tinyResults } from "./__fixtures__/tiny-results.js";
import { renderCharts } from "./render-charts.js";
import { headlineFigures, renderReport, reproduceCommand } from "./render-report.js";

describe("renderReport", () => {
  const results = tinyResults();
  const charts = renderCharts(results);
  const report = renderReport({ results, charts });

  it("names the run and the command that reproduces it", () => {
    // The fixture is a quick run: its report says so loudly, at the top.
    expect(report).toMatch(/^# Benchmark results \(QUICK RUN\)\n\n> \*\*A quick run\*\*/);
    expect(report).toContain("A **quick** run of `pnpm bench --quick`");
    const full = renderReport({
      results: { ...results, settings: { ...results.settings, mode: "full" } },
      charts,
    });
    expect(full).toMatch(/^# Benchmark results\n\nA \*\*full\*\* run/);
    expect(reproduceCommand("full")).toBe("pnpm bench");
  });

  it("has a section with a table for every measured part", () => {
    for (const heading of [
      "## Headline",
      "## 1. Prefix efficiency",
      "## 2. Per-turn cost growth",
      "## 3. Checkpoint and store writes per request",
      "## 4. Gateway overhead",
      "### Memory per open conversation",
      "## 5. Simulated input cost",
      "## 6. Stores: SQLite and PostgreSQL, one and two processes",
      "## 7. The Cursor wire",
      "### Added latency and KV bytes per turn",
      "## 8. Tenant isolation: large content beside small reads",
      "## 9. Load: 4 conversations × 2 turns with tool rounds, 2 at once",
      "## How the baselines are built",
    ]) {
      expect(report).toContain(heading);
    }
    expect(report).toContain(
      "| **measured: gateway → fake provider** | 7500 | 2800 | 2816 | 99.4% | 99.4% | 37.3% |",
    );
    expect(report).toContain("| 10 / 50 | 50.0 kB | 0.20 ms | 0.05 ms | 0.10 ms |");
    expect(report).toContain(
      "|  | **Cursor wire** (2 turns, 1 tool rounds) | 3 | 99.4% | 99.4% | 37.3% |",
    );
    expect(report).toContain("| 10 | 2 | 30 ms | 40 ms | 35 ms | 45 ms | 5.0 ms | 9.0 ms |");
    expect(report).toContain(
      "| this build | 1.1 ms / 1.5 ms | 1.4 ms / 2.5 ms / 3.0 ms | 0.40 ms | 0.60 ms / 1.2 ms / 2.0 ms | 9 |",
    );
  });

  it("shows the gateway's own figures from its usage records, and says when they differ", () => {
    const records = {
      calls: 3,
      inputTokens: 7500,
      cachedInputTokens: 2800,
      cacheWriteTokens: 0,
      outputTokens: 90,
      cachedRatio: 2800 / 7500,
      costUsd: 0.0062,
      savedUsd: 0.0032,
      prices: [{ source: "built-in table", asOf: "2025-11" }],
      matchesProvider: true,
    };
    const withRecords = (gatewayRecords: typeof records & { firstMismatch?: string }) =>
      renderReport({
        results: {
          ...results,
          prefix: results.prefix.map((result) => ({ ...result, gatewayRecords })),
        },
        charts,
      });
    const matching = withRecords(records);
    expect(matching).toContain(
      "The gateway's own usage records (`GET /v1/conversations/{id}/calls`): 3 calls, Σ input 7 500, Σ cached 2 800",
    );
    expect(matching).toContain("(prices: built-in table, as of 2025-11)");
    expect(matching).toContain("Every record equals what the fake provider counted for its call.");
    expect(
      withRecords({ ...records, matchesProvider: false, firstMismatch: "call 1: recorded x" }),
    ).toContain("**They differ from the fake provider's count** (call 1: recorded x).");
  });

  it("compares the stores under the same load", () => {
    expect(report).toContain(
      "| PostgreSQL, 2 processes (every turn on the other one) | 6 | 80.0 req/s | 14 ms | 20 ms | 2.0 ms | 3.0 ms | 12 ms | 17 ms | 800.0 req/s |",
    );
    expect(report).toContain("PostgreSQL 15.18 (fsync off, synchronous_commit off)");
    const withoutDatabase = renderReport({
      results: {
        ...results,
        stores: { ...results.stores!, rows: [results.stores!.rows[0]!], postgresSkipped: "no URL" },
      },
      charts,
    });
    expect(withoutDatabase).toContain("PostgreSQL was not measured: no URL.");
  });

  it("shows the load part's throughput, added latency and verification, and failures loudly", () => {
    expect(report).toContain(
      "| 16 | 32.0 (64.0) | 9.5 ms | 20 ms / 30 ms / 40 ms | 8.0 ms / 12 ms / 16 ms | 12 ms / 18 ms / 24 ms | 30.0 kB / 36.0 kB | 0 |",
    );
    expect(report).toContain(
      "Checked: 44 messages, 20 usage records for 20 provider calls, 10 run records: all 6 conversations verified.",
    );
    expect(headlineFigures(results)).toContain(
      "Load, 4 conversations × 2 turns with tool rounds, 2 at once, `cursor-gateway serve` in its own process: 32 calls/s (direct 64), 9.5 ms of gateway CPU per call, +12 ms p50 / +24 ms p99 added per call, 0 errors; all 6 conversations verified",
    );
    expect(report).not.toContain("## Failed measurements");
    const failing = renderReport({
      results: {
        ...results,
        load: {
          ...results.load!,
          errors: 1,
          errorSamples: ["load-001 turn 2, user message: answered 500: boom"],
          failedConversations: 1,
          verificationProblems: 2,
          verificationSamples: [
            "load-001: message ids stored twice: a",
            "load-001: 3 usage records for 4 provider calls",
          ],
        },
        failures: ["load: 1 failed calls, 2 verification problems; first: load-001 turn 2"],
      },
      charts,
    });
    expect(failing).toContain(
      "## Failed measurements\n\n- **Failed**: load: 1 failed calls, 2 verification problems; first: load-001 turn 2\n",
    );
    expect(failing).toContain("**1 errors**; **1 of 6 conversations FAILED verification**");
    expect(failing).toContain("- load-001 turn 2, user message: answered 500: boom");
    expect(failing).toContain("- load-001: message ids stored twice: a");
    expect(failing).toContain("(2 problems).");
  });

  it("prices the session with the published discounts", () => {
    // 7500 input, 2800 cached at gpt-5 prices: 4700 × 1.25 + 2800 × 0.125 per million.
    expect(report).toContain(
      "| OpenAI Responses (gpt-5) | **measured: gateway** | 40.0% | $0.01 | 1.00× |",
    );
  });

  it("links every chart it renders", () => {
    for (const chart of charts) expect(report).toContain(`(${chart.file})`);
  });

  it("lists deviations from the session script", () => {
    const deviating = tinyResults();
    const withDeviation = {
      ...deviating,
      prefix: [
        {
          ...deviating.prefix[0]!,
          drive: { ...deviating.prefix[0]!.drive, deviations: ["event 3: refused"] },
        },
      ],
    };
    expect(renderReport({ results: withDeviation, charts: [] })).toContain("- event 3: refused");
  });

  it("summarises the headline figures in one line each", () => {
    const lines = headlineFigures(results);
    expect(lines[0]).toMatch(/^OpenAI Responses: 99\.4% of the best possible cached tokens/);
    expect(lines.some((line) => line.startsWith("Gateway overhead at 10 turns"))).toBe(true);
    expect(lines.some((line) => line.startsWith("Memory per open conversation"))).toBe(true);
  });
});

describe("renderCharts", () => {
  it("renders the same bytes for the same results", () => {
    expect(renderCharts(tinyResults())).toEqual(renderCharts(tinyResults()));
  });

  it("renders one chart per figure, each a standalone SVG", () => {
    const charts = renderCharts(tinyResults());
    expect(charts.map((chart) => chart.file)).toEqual([
      "prefix-efficiency.svg",
      "cached-per-call-openai-responses.svg",
      "cached-per-call-anthropic.svg",
      "input-cost.svg",
      "turn-cost-ratio.svg",
      "turn-cost-ms.svg",
      "writes-per-request.svg",
      "gateway-overhead.svg",
    ]);
    for (const chart of charts) {
      expect(chart.svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(chart.svg.trimEnd().endsWith("</svg>")).toBe(true);
    }
  });

  it("leaves out the charts of parts that did not run", () => {
    const results = { ...tinyResults(), growth: [], overhead: [] };
    expect(renderCharts(results).map((chart) => chart.file)).not.toContain("turn-cost-ratio.svg");
  });
});
