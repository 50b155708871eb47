import type { BenchMode, BenchSettings } from "./bench-results.js";

/** What `pnpm bench` and `pnpm bench --quick` measure (the quick run stays under ~2 minutes). */
export function benchSettings(mode: BenchMode): BenchSettings {
  const common = { mode, seed: 7, toolResultChars: 1500, overheadHistoryTurns: [10, 1_000] };
  return mode === "quick"
    ? {
        ...common,
        sessionTurns: 60,
        growthMarks: [10, 100, 1_000],
        growthWindowTurns: 5,
        overheadSamples: 12,
        memoryHistoryTurns: [10, 100],
        memoryConversations: 8,
        wireHistoryTurns: [10, 100, 1_000],
        wireSamples: 8,
        wireKvTurns: 32,
        storeClients: 4,
        storeTurns: 10,
      }
    : {
        ...common,
        sessionTurns: 200,
        growthMarks: [10, 100, 1_000, 5_000],
        growthWindowTurns: 10,
        overheadSamples: 40,
        memoryHistoryTurns: [10, 100],
        memoryConversations: 20,
        wireHistoryTurns: [10, 100, 1_000],
        wireSamples: 20,
        wireKvTurns: 32,
        storeClients: 8,
        storeTurns: 25,
      };
}
