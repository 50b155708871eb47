import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { generateAgentSession } from "@cursor/testkit";
import type {
  BenchResults,
  BenchSettings,
  JsonFrontDoorTotals,
  MachineInfo,
  WireResults,
} from "./bench-results.js";
import { measureGrowth } from "./growth/turn-cost-growth.js";
import { measureLargeContentIsolation } from "./isolation/large-content-isolation.js";
import { measureLoad } from "./load/gateway-load.js";
import type { LoadResult } from "./load/gateway-load.js";
import type { IsolationRow } from "./isolation/large-content-isolation.js";
import type { BenchProvider } from "./harness/gateway-harness.js";
import { providerLabels } from "./harness/provider-adapters.js";
import { measureConversationMemory, memoryTargetRatio } from "./overhead/conversation-memory.js";
import type { MemoryRow } from "./overhead/conversation-memory.js";
import { measureGatewayOverhead } from "./overhead/gateway-overhead.js";
import type { OverheadRow } from "./overhead/gateway-overhead.js";
import { profileGateway } from "./profile/cpu-profile.js";
import type { ProfileRow } from "./profile/cpu-profile.js";
import { measurePrefixEfficiency } from "./prefix/prefix-efficiency.js";
import type { PrefixEfficiencyResult } from "./prefix/prefix-efficiency.js";
import { contextWindowForOneCompaction } from "./prefix/session-size.js";
import type { Progress } from "./progress.js";
import { bytes, milliseconds, percent, ratio } from "./report/format.js";
import { benchDatabaseURL, measureStores } from "./stores/store-throughput.js";
import type { StoreResult } from "./stores/store-throughput.js";
import { measureWireAtHistory } from "./wire/wire-overhead.js";
import { measureWirePrefixEfficiency } from "./wire/wire-prefix-efficiency.js";

/** The providers whose cache simulation part 1 runs: OpenAI's (Responses) and Anthropic's. */
const prefixProviders: readonly BenchProvider[] = ["openai-responses", "anthropic"];

export type BenchPart =
  | "prefix"
  | "growth"
  | "overhead"
  | "memory"
  | "stores"
  | "wire"
  | "isolation"
  | "load"
  | "profile";
export const benchParts: readonly BenchPart[] = [
  "prefix",
  "growth",
  "overhead",
  "memory",
  "stores",
  "wire",
  "isolation",
  "load",
  "profile",
];

function machineInfo(loadAtStart: number): MachineInfo {
  const cpuList = cpus();
  return {
    node: process.versions.node,
    platform: `${platform()} ${release()}`,
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? "unknown CPU",
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    loadAverage: [loadAtStart, loadavg()[0] ?? 0],
  };
}

/** Runs the selected parts one after the other (never in parallel: they time things). */
export async function runBench({
  settings,
  parts,
  progress,
  baselineServers = [],
}: {
  settings: BenchSettings;
  parts: readonly BenchPart[];
  progress: Progress;
  /** Builds of the gateway (`packages/server` folders) part 8 (isolation) also measures, for comparison. */
  baselineServers?: readonly string[];
}): Promise<BenchResults> {
  const startedAt = new Date().toISOString();
  const loadAtStart = loadavg()[0] ?? 0;
  const started = performance.now();
  const session = generateAgentSession({
    seed: settings.seed,
    turns: settings.sessionTurns,
    toolResultChars: settings.toolResultChars,
    // The one compaction is the gateway's automatic one (the context window below).
    features: { compaction: false },
  });
  const prefix: PrefixEfficiencyResult[] = [];
  if (parts.includes("prefix")) {
    const contextWindow = contextWindowForOneCompaction(session);
    for (const provider of prefixProviders) {
      progress.begin(`prefix efficiency, ${providerLabels[provider]}`);
      const result = await measurePrefixEfficiency({
        provider,
        session,
        contextWindow,
        onProgress: progress.update,
      });
      prefix.push(result);
      progress.done(
        `${percent(result.measured.prefixEfficiency)} of best possible, naive ${percent(result.variants["naive-date"].prefixEfficiency)}`,
      );
    }
  }
  const growth = [];
  if (parts.includes("growth")) {
    progress.begin(`per-turn cost and writes at ${settings.growthMarks.join(", ")} turns`);
    growth.push(
      ...(await measureGrowth({
        marks: settings.growthMarks,
        windowTurns: settings.growthWindowTurns,
        toolResultChars: settings.toolResultChars,
        seed: settings.seed + 1,
        onProgress: progress.update,
      })),
    );
    progress.done(
      growth
        .map(
          (row) =>
            `${row.historyTurns}: ${ratio(row.ratio["openai-responses"])} / ${bytes(row.checkpointBytes)}`,
        )
        .join(", "),
    );
  }
  const overhead: OverheadRow[] = [];
  const failures: string[] = [];
  if (parts.includes("overhead")) {
    for (const concurrency of settings.overheadConcurrency ?? [1]) {
      for (const historyTurns of settings.overheadHistoryTurns) {
        progress.begin(
          `gateway overhead at ${historyTurns} turns of history, ${concurrency} at once`,
        );
        let row: OverheadRow;
        try {
          row = await measureGatewayOverhead({
            historyTurns,
            concurrency,
            samples:
              historyTurns >= 1_000
                ? (settings.overheadSamplesLong ?? settings.overheadSamples)
                : settings.overheadSamples,
            warmupCalls: Math.min(
              settings.overheadWarmupCalls ?? 0,
              // Long bodies: fewer warm-up calls (they take long; the code is warm sooner).
              Math.max(32, Math.round(32_000 / historyTurns)),
            ),
            seed: settings.seed + 2,
            toolResultChars: settings.toolResultChars,
            onProgress: progress.update,
          });
        } catch (error) {
          // One configuration that breaks is reported, not allowed to lose the whole run.
          const message = `gateway overhead at ${historyTurns} turns, ${concurrency} at once failed: ${error instanceof Error ? `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}` : String(error)}`;
          failures.push(message);
          progress.done(message);
          continue;
        }
        overhead.push(row);
        progress.done(
          `end +${milliseconds(row.gateway.addedEnd.p50)} p50 (proxy +${milliseconds(row.proxy.addedEnd.p50)}, ${ratio(row.ratio.endP50)}), first text +${milliseconds(row.gateway.addedFirstText.p50)} (${ratio(row.ratio.firstTextP50)}), ${row.errors} errors`,
        );
      }
    }
  }
  const memory: MemoryRow[] = [];
  if (parts.includes("memory")) {
    for (const historyTurns of settings.memoryHistoryTurns) {
      progress.begin(`memory per open conversation at ${historyTurns} turns`);
      const row = await measureConversationMemory({
        historyTurns,
        conversations: settings.memoryConversations,
        seed: settings.seed + 3,
        toolResultChars: settings.toolResultChars,
        onProgress: progress.update,
      });
      memory.push(row);
      progress.done(
        `${bytes(row.heapBytesPerConversation)}: ${ratio(row.heapBytesPerConversation / row.historyBytes)} its history's JSON (${bytes(row.historyBytes)}; target ≤ ${ratio(memoryTargetRatio)})`,
      );
    }
  }
  let stores: StoreResult | undefined;
  if (parts.includes("stores")) {
    const databaseURL = benchDatabaseURL(process.env);
    progress.begin(
      `stores: SQLite${databaseURL === undefined ? " (PostgreSQL skipped: no database URL)" : ", PostgreSQL with 1 and 2 processes"}, ${settings.storeClients} conversations at once`,
    );
    stores = await measureStores({
      clients: settings.storeClients,
      turns: settings.storeTurns,
      databaseURL,
      onProgress: progress.update,
    });
    progress.done(
      stores.rows.map((row) => `${row.setup} ${row.requestsPerSecond.toFixed(0)}/s`).join(", "),
    );
  }
  let wire: WireResults | undefined;
  if (parts.includes("wire")) {
    const contextWindow = contextWindowForOneCompaction(session);
    const wirePrefix: WireResults["prefix"][number][] = [];
    for (const provider of prefixProviders) {
      // The JSON front door's figures for the same session: part 1's, else measured now.
      let jsonResult = prefix.find((result) => result.provider === provider);
      if (jsonResult === undefined) {
        progress.begin(`JSON front door, ${providerLabels[provider]} (for the wire's comparison)`);
        jsonResult = await measurePrefixEfficiency({
          provider,
          session,
          contextWindow,
          onProgress: progress.update,
        });
        progress.done(percent(jsonResult.measured.prefixEfficiency));
      }
      const json: JsonFrontDoorTotals = {
        prefixEfficiency: jsonResult.measured.prefixEfficiency,
        prefixEfficiencyOutsideCompaction: jsonResult.measured.prefixEfficiencyOutsideCompaction,
        cachedRatio: jsonResult.measured.cachedRatio,
        providerCalls: jsonResult.drive.providerCalls,
      };
      progress.begin(`the session through the Cursor wire, ${providerLabels[provider]}`);
      const result = await measureWirePrefixEfficiency({
        provider,
        session,
        contextWindow,
        onProgress: progress.update,
      });
      wirePrefix.push({ wire: result, json });
      progress.done(
        `${percent(result.measured.prefixEfficiency)} of best possible (JSON ${percent(json.prefixEfficiency)})`,
      );
    }
    const history = [];
    for (const historyTurns of settings.wireHistoryTurns ?? []) {
      progress.begin(`the Cursor wire at ${historyTurns} turns of history`);
      const row = await measureWireAtHistory({
        historyTurns,
        samples: settings.wireSamples ?? 8,
        kvTurns: settings.wireKvTurns ?? 32,
        seed: settings.seed + 4,
        toolResultChars: settings.toolResultChars,
        onProgress: progress.update,
      });
      history.push(row);
      progress.done(
        `+${milliseconds(row.addedP50Ms)} p50 per turn, ${bytes(row.kv.meanBytes)} KV per turn`,
      );
    }
    wire = { prefix: wirePrefix, history };
  }
  const isolation: IsolationRow[] = [];
  if (parts.includes("isolation")) {
    const builds = [
      { build: "this build" },
      ...baselineServers.map((serverDir) => ({ build: `baseline ${serverDir}`, serverDir })),
    ];
    for (const build of builds) {
      progress.begin(
        `a small tenant beside ${settings.isolation.largeTurns} × ${settings.isolation.imageMiB} MiB images (${build.build})`,
      );
      const row = await measureLargeContentIsolation({
        ...settings.isolation,
        ...build,
        onProgress: progress.update,
      });
      isolation.push(row);
      progress.done(
        `history p50 ${milliseconds(row.smallAloneP50Ms)} alone, ${milliseconds(row.smallBesideP50Ms)} beside; /healthz p50 ${milliseconds(row.healthBesideP50Ms)} beside`,
      );
    }
  }
  let load: LoadResult | undefined;
  const loadSettings = settings.load;
  if (parts.includes("load") && loadSettings !== undefined) {
    progress.begin(
      `load: ${loadSettings.conversations} conversations × ${loadSettings.turns} turns with tool rounds, ${loadSettings.concurrency} at once`,
    );
    try {
      load = await measureLoad({
        ...loadSettings,
        toolResultChars: settings.toolResultChars,
        onProgress: progress.update,
      });
      // Errors and failed checks fail the part loudly: listed as failures (the CLI then exits 1).
      if (load.errors > 0 || load.verificationProblems > 0) {
        failures.push(
          `load: ${load.errors} failed calls, ${load.verificationProblems} verification problems; first: ${[...load.errorSamples, ...load.verificationSamples][0]}`,
        );
      }
      progress.done(
        `${load.callsPerSecond.toFixed(0)} calls/s, +${milliseconds(load.addedMs.p50)} p50 / +${milliseconds(load.addedMs.p99)} p99, ${load.errors} errors, ${load.verifiedConversations - load.failedConversations} of ${load.verifiedConversations} conversations verified${load.verificationProblems === 0 ? "" : ` (${load.verificationProblems} problems)`}`,
      );
    } catch (error) {
      const message = `load failed: ${error instanceof Error ? error.message : String(error)}`;
      failures.push(message);
      progress.done(message);
    }
  }
  const profile: ProfileRow[] = [];
  if (parts.includes("profile")) {
    for (const historyTurns of settings.profileHistoryTurns ?? []) {
      progress.begin(`CPU profile at ${historyTurns} turns of history`);
      let row: ProfileRow;
      try {
        row = await profileGateway({
          historyTurns,
          requests: settings.profileRequests ?? 8,
          seed: settings.seed + 5,
          toolResultChars: settings.toolResultChars,
          onProgress: progress.update,
        });
      } catch (error) {
        const message = `CPU profile at ${historyTurns} turns failed: ${error instanceof Error ? error.message : String(error)}`;
        failures.push(message);
        progress.done(message);
        continue;
      }
      profile.push(row);
      const top = row.top[0];
      progress.done(
        top === undefined ? "no samples" : `top: ${top.functionName} ${percent(top.share)}`,
      );
    }
  }
  return {
    settings,
    machine: machineInfo(loadAtStart),
    startedAt,
    durationSeconds: (performance.now() - started) / 1000,
    session: { conversationId: session.conversationId, stats: session.stats },
    prefix,
    growth,
    overhead,
    memory,
    ...(stores === undefined ? {} : { stores }),
    ...(wire === undefined ? {} : { wire }),
    isolation,
    ...(parts.includes("profile") ? { profile } : {}),
    ...(load === undefined ? {} : { load }),
    ...(failures.length === 0 ? {} : { failures }),
  };
}

/** Progress steps a run of `parts` will report. */
export function stepCount(
  settings: BenchSettings,
  parts: readonly BenchPart[],
  baselineServers = 0,
): number {
  return (
    (parts.includes("prefix") ? prefixProviders.length : 0) +
    (parts.includes("growth") ? 1 : 0) +
    (parts.includes("overhead")
      ? settings.overheadHistoryTurns.length * (settings.overheadConcurrency?.length ?? 1)
      : 0) +
    (parts.includes("profile") ? (settings.profileHistoryTurns?.length ?? 0) : 0) +
    (parts.includes("memory") ? settings.memoryHistoryTurns.length : 0) +
    (parts.includes("stores") ? 1 : 0) +
    (parts.includes("wire")
      ? prefixProviders.length * (parts.includes("prefix") ? 1 : 2) +
        (settings.wireHistoryTurns?.length ?? 0)
      : 0) +
    (parts.includes("isolation") ? 1 + baselineServers : 0) +
    (parts.includes("load") && settings.load !== undefined ? 1 : 0)
  );
}
