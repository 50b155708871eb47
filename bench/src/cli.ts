#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { BenchResults } from "./bench-results.js";
import { benchSettings } from "./bench-settings.js";
import { Progress } from "./progress.js";
import { headlineFigures, renderReport, reproduceCommand } from "./report/render-report.js";
import { renderCharts } from "./report/render-charts.js";
import { defaultOutDir } from "./output-folder.js";
import { benchParts, runBench, stepCount } from "./run-bench.js";
import type { BenchPart } from "./run-bench.js";

const usage = `pnpm bench [--quick] [--only prefix,growth,overhead,memory,stores,wire,isolation,load,profile]
           [--out DIR] [--from FILE] [--baseline-server DIR]
           [--history N,N] [--concurrency N,N] [--profile-requests N]

Measures the gateway against its baselines and writes DIR/latest.md, DIR/latest.json and SVG
charts. DIR defaults to bench/results for a full run (the committed figures the README quotes)
and to bench/results/quick (not committed) for --quick, so a quick run never replaces them.
  --quick   a short run (smaller session and histories, fewer samples; about 2 minutes)
  --only    run some parts only (the report then lacks the others)
  --from    re-render the report and charts from an earlier run's latest.json
  --history      history lengths (turns) of the overhead and profile parts, e.g. 10,200
  --concurrency  conversations at once of the overhead part, e.g. 1 (a focused rerun while
                 optimising; the full report uses the defaults)
  --profile-requests  requests the profile part profiles per history length (more: steadier)
  --baseline-server  another build's packages/server folder (built): the isolation part
            measures it too, on the same data, for a before/after comparison (repeatable)

The stores part measures PostgreSQL (1 and 2 gateway processes) beside SQLite when
CURSOR_GATEWAY_BENCH_DATABASE_URL (or CURSOR_GATEWAY_TEST_DATABASE_URL) names a server where it may
create databases; without one it measures SQLite only and says so.

A measurement that fails (a configuration that errors, a load call that fails, a conversation
the load part cannot verify afterwards) is listed in the report and the exit code is 1.`;

/** Positive integers from `--history` / `--concurrency`, or a clear error. */
function integers(option: string, text: string): number[] {
  const values = text.split(",").map((part) => Number(part.trim()));
  if (values.length === 0 || values.some((value) => !Number.isInteger(value) || value < 1)) {
    throw new Error(`--${option} takes positive integers separated by commas, got "${text}"`);
  }
  return values;
}

function withOverheadFocus(
  settings: ReturnType<typeof benchSettings>,
  focus: {
    history: string | undefined;
    concurrency: string | undefined;
    profileRequests: string | undefined;
  },
): ReturnType<typeof benchSettings> {
  const history = focus.history === undefined ? undefined : integers("history", focus.history);
  const concurrency =
    focus.concurrency === undefined ? undefined : integers("concurrency", focus.concurrency);
  return {
    ...settings,
    ...(history === undefined
      ? {}
      : { overheadHistoryTurns: history, profileHistoryTurns: history }),
    ...(concurrency === undefined ? {} : { overheadConcurrency: concurrency }),
    ...(focus.profileRequests === undefined
      ? {}
      : { profileRequests: integers("profile-requests", focus.profileRequests)[0]! }),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      out: { type: "string" },
      from: { type: "string" },
      "baseline-server": { type: "string", multiple: true },
      history: { type: "string" },
      concurrency: { type: "string" },
      "profile-requests": { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const parts = (values.only?.split(",").map((part) => part.trim()) ?? benchParts) as BenchPart[];
  const unknown = parts.filter((part) => !benchParts.includes(part));
  if (unknown.length > 0) throw new Error(`unknown part(s) ${unknown.join(", ")}\n\n${usage}`);
  const settings = withOverheadFocus(benchSettings(values.quick ? "quick" : "full"), {
    history: values.history,
    concurrency: values.concurrency,
    profileRequests: values["profile-requests"],
  });
  const outDir = resolve(values.out ?? defaultOutDir(values.quick ? "quick" : "full"));
  let results: BenchResults;
  if (values.from === undefined) {
    const baselineServers = (values["baseline-server"] ?? []).map((dir) => resolve(dir));
    const progress = new Progress({
      out: process.stderr,
      steps: stepCount(settings, parts, baselineServers.length),
    });
    process.stderr.write(`${reproduceCommand(settings.mode)}: ${parts.join(", ")} → ${outDir}\n`);
    results = await runBench({ settings, parts, progress, baselineServers });
  } else {
    // Re-render the report and charts of an earlier run (after changing how they look).
    results = JSON.parse(readFileSync(values.from, "utf8")) as BenchResults;
  }
  const charts = renderCharts(results);
  mkdirSync(outDir, { recursive: true });
  for (const chart of charts) writeFileSync(join(outDir, chart.file), chart.svg);
  writeFileSync(join(outDir, "latest.md"), renderReport({ results, charts }));
  if (values.from === undefined) {
    writeFileSync(join(outDir, "latest.json"), `${JSON.stringify(results)}\n`);
  }
  process.stdout.write(
    [
      "",
      `Benchmark (${results.settings.mode}, ${Math.round(results.durationSeconds)} s):`,
      ...headlineFigures(results).map((line) => `  ${line}`),
      `Report: ${join(outDir, "latest.md")} (+ ${charts.length} SVG charts)`,
      "",
    ].join("\n"),
  );
  const failures = results.failures ?? [];
  if (failures.length > 0 && values.from === undefined) {
    process.stderr.write(
      `\n${failures.length} measurement(s) FAILED:\n${failures.map((failure) => `  - ${failure}`).join("\n")}\n`,
    );
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
