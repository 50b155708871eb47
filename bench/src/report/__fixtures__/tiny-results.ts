import type { BenchResults } from "../../bench-results.js";
import type { PrefixEfficiencyResult } from "../../prefix/prefix-efficiency.js";
import type { VariantCallResult, VariantTotals } from "../../prefix/variant-simulation.js";

const totals = (cached: number, best: number, input: number, cost: number): VariantTotals => ({
  requests: 3,
  inputTokens: input,
  cachedTokens: cached,
  cacheWriteTokens: 0,
  bestPossibleCachedTokens: best,
  cachedRatio: cached / input,
  prefixEfficiency: cached / best,
  relativeInputCost: cost,
  prefixEfficiencyOutsideCompaction: cached / best,
});

const calls = (cached: readonly number[]): VariantCallResult[] =>
  cached.map((value, index) => ({
    index,
    compaction: false,
    summarizer: false,
    inputTokens: 2000 + index * 500,
    cachedTokens: value,
    bestPossibleCachedTokens: index === 0 ? 0 : 1024 + index * 384,
  }));

const prefix = (provider: PrefixEfficiencyResult["provider"]): PrefixEfficiencyResult => ({
  provider,
  contextWindow: 90_000,
  drive: { requests: 4, providerCalls: 3, compactions: 1, restarts: 0, deviations: [] },
  measured: totals(2800, 2816, 7500, 0.4),
  measuredCalls: calls([0, 1408, 1792]),
  variants: {
    ours: totals(2800, 2816, 7500, 0.4),
    "naive-date": totals(1024, 2816, 7300, 0.7),
    "naive-time": totals(0, 2816, 7300, 1),
    "no-dedup": totals(3000, 3072, 8800, 0.45),
  },
  variantCalls: {
    ours: calls([0, 1408, 1792]),
    "naive-date": calls([0, 1024, 0]),
    "naive-time": calls([0, 0, 0]),
    "no-dedup": calls([0, 1408, 1792]),
  },
  reprojection: { checked: 3, matched: 3 },
  seconds: 1.2,
});

const perProvider = (value: number) => ({
  "openai-responses": value,
  "openai-chat": value * 1.1,
  anthropic: value * 1.3,
});

/** A hand-made run: three calls, two history lengths, one overhead and memory row each. */
export function tinyResults(): BenchResults {
  return {
    settings: {
      mode: "quick",
      seed: 7,
      sessionTurns: 2,
      toolResultChars: 100,
      growthMarks: [10, 100],
      growthWindowTurns: 1,
      overheadHistoryTurns: [10],
      overheadSamples: 2,
      memoryHistoryTurns: [10],
      memoryConversations: 2,
      storeClients: 2,
      storeTurns: 3,
    },
    machine: {
      node: "20.0.0",
      platform: "linux test",
      cpus: 2,
      cpuModel: "Test CPU",
      memoryGb: 8,
      loadAverage: [0.5, 0.7],
    },
    startedAt: "2026-11-29T10:00:00.000Z",
    durationSeconds: 12.3,
    session: {
      conversationId: "session-7",
      stats: {
        userTurns: 2,
        runRequests: 4,
        providerCalls: 3,
        toolRounds: 1,
        toolCalls: 1,
        contextChanges: 1,
        contextReverts: 0,
        modeSwitches: 0,
        backgroundCompletions: 0,
        duplicateDeliveries: 0,
        injections: 0,
        retries: 0,
        restarts: 0,
        compactions: 0,
        toolOutputChars: 100,
      },
    },
    prefix: [prefix("openai-responses"), prefix("anthropic")],
    growth: [10, 100].map((historyTurns) => ({
      historyTurns,
      historyMessages: historyTurns * 5,
      calls: 2,
      prepareMs: 0.2,
      appendMs: 0.05,
      projectMs: historyTurns / 100,
      serializeMs: perProvider(historyTurns / 50),
      stringifyMs: perProvider(historyTurns / 20),
      bodyBytes: perProvider(historyTurns * 5000),
      ratio: perProvider(1.2),
      requests: 3,
      newContentBytes: 2000,
      checkpointBytes: 4000,
      checkpointMs: 0.4,
      storeBytes: 2500,
      storeMs: 0.5,
    })),
    overhead: [
      {
        historyTurns: 10,
        samples: 2,
        bodyBytes: 80_000,
        gatewayP50Ms: 30,
        gatewayP95Ms: 40,
        directP50Ms: 10,
        directP95Ms: 12,
        addedP50Ms: 20,
        addedP95Ms: 28,
        deviations: [],
      },
    ],
    memory: [
      {
        historyTurns: 10,
        conversations: 2,
        messages: 50,
        historyBytes: 55_000,
        heapBytesPerConversation: 60_000,
        gcExposed: true,
      },
    ],
    stores: {
      clients: 2,
      turns: 3,
      postgres: { version: "15.18", fsync: "off", synchronousCommit: "off" },
      rows: [
        {
          setup: "sqlite-1",
          processes: 1,
          requests: 6,
          requestsPerSecond: 100,
          gatewayP50Ms: 12,
          gatewayP95Ms: 15,
          directP50Ms: 2,
          directP95Ms: 3,
          directRequestsPerSecond: 800,
          failures: [],
        },
        {
          setup: "postgresql-2",
          processes: 2,
          requests: 6,
          requestsPerSecond: 80,
          gatewayP50Ms: 14,
          gatewayP95Ms: 20,
          directP50Ms: 2,
          directP95Ms: 3,
          directRequestsPerSecond: 800,
          failures: [],
        },
      ],
    },
    wire: {
      prefix: [
        {
          json: {
            prefixEfficiency: 0.994,
            prefixEfficiencyOutsideCompaction: 0.994,
            cachedRatio: 0.373,
            providerCalls: 3,
          },
          wire: {
            provider: "openai-responses",
            turns: 2,
            toolRounds: 1,
            providerCalls: 3,
            compactions: 0,
            restarts: 0,
            measured: {
              requests: 3,
              inputTokens: 7500,
              cachedTokens: 2800,
              cacheWriteTokens: 0,
              bestPossibleCachedTokens: 2816,
              cachedRatio: 0.373,
              prefixEfficiency: 0.994,
              relativeInputCost: 0.66,
              prefixEfficiencyOutsideCompaction: 0.994,
            },
            kv: { bytesSet: 9_000, blobsSet: 12, blobsGot: 0 },
            deviations: [],
            seconds: 1,
          },
        },
      ],
      history: [
        {
          historyTurns: 10,
          samples: 2,
          jsonP50Ms: 30,
          jsonP95Ms: 40,
          wireP50Ms: 35,
          wireP95Ms: 45,
          addedP50Ms: 5,
          addedP95Ms: 9,
          attachedP50Ms: 38,
          attachedAddedP50Ms: 8,
          attachedAddedP95Ms: 12,
          kv: { turns: 32, meanBytes: 2_200, maxBytes: 7_000, meanBlobs: 6, rootEntries: 60 },
        },
      ],
    },
  };
}
