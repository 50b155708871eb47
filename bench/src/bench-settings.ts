import type { BenchMode, BenchSettings } from "./bench-results.js";

/** What `pnpm bench` and `pnpm bench --quick` measure (the quick run stays under ~2 minutes). */
export function benchSettings(mode: BenchMode): BenchSettings {
  const common = {
    mode,
    seed: 7,
    toolResultChars: 1500,
    overheadHistoryTurns: [10, 200, 1_000],
    overheadConcurrency: [1, 16],
    profileHistoryTurns: [10, 200, 1_000],
  };
  return mode === "quick"
    ? {
        ...common,
        sessionTurns: 60,
        growthMarks: [10, 100, 1_000],
        growthWindowTurns: 5,
        overheadSamples: 24,
        overheadSamplesLong: 12,
        overheadWarmupCalls: 48,
        profileRequests: 8,
        memoryHistoryTurns: [10, 100],
        memoryConversations: 6,
        wireHistoryTurns: [10, 100, 1_000],
        wireSamples: 8,
        wireKvTurns: 32,
        storeClients: 4,
        storeTurns: 10,
        isolation: { largeTurns: 3, imageMiB: 8, samples: 15 },
        load: { conversations: 64, turns: 5, concurrency: 32 },
      }
    : {
        ...common,
        sessionTurns: 200,
        growthMarks: [10, 100, 1_000, 5_000],
        growthWindowTurns: 10,
        overheadSamples: 200,
        overheadSamplesLong: 48,
        overheadWarmupCalls: 320,
        profileRequests: 20,
        memoryHistoryTurns: [10, 100, 1_000],
        memoryConversations: 10,
        wireHistoryTurns: [10, 100, 1_000],
        wireSamples: 20,
        wireKvTurns: 32,
        storeClients: 8,
        storeTurns: 25,
        isolation: { largeTurns: 4, imageMiB: 20, samples: 40 },
        load: { conversations: 200, turns: 10, concurrency: 32 },
      };
}
