import type { AgentSessionStats } from "@cursor/testkit";
import type { GrowthRow } from "./growth/turn-cost-growth.js";
import type { MemoryRow } from "./overhead/conversation-memory.js";
import type { OverheadRow } from "./overhead/gateway-overhead.js";
import type { PrefixEfficiencyResult } from "./prefix/prefix-efficiency.js";
import type { WireHistoryRow } from "./wire/wire-overhead.js";
import type { WirePrefixResult } from "./wire/wire-prefix-efficiency.js";
import type { StoreResult } from "./stores/store-throughput.js";

export type BenchMode = "quick" | "full";

/** What a run measures; `quick` and `full` differ only in sizes. */
export interface BenchSettings {
  readonly mode: BenchMode;
  readonly seed: number;
  /** User turns of the prefix-efficiency session. */
  readonly sessionTurns: number;
  /** Typical large tool result of the generated sessions, in characters. */
  readonly toolResultChars: number;
  readonly growthMarks: readonly number[];
  readonly growthWindowTurns: number;
  readonly overheadHistoryTurns: readonly number[];
  readonly overheadSamples: number;
  readonly memoryHistoryTurns: readonly number[];
  readonly memoryConversations: number;
  /** History lengths of the Cursor wire's latency and KV measurements. */
  readonly wireHistoryTurns?: readonly number[];
  readonly wireSamples?: number;
  /** Identical short turns whose KV traffic is measured at each history length. */
  readonly wireKvTurns?: number;
  /** Conversations driven at once, and user turns each, of the stores part. */
  readonly storeClients: number;
  readonly storeTurns: number;
}

export interface MachineInfo {
  readonly node: string;
  readonly platform: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  /** 1-minute load average when the run started and ended (shared machines skew timings). */
  readonly loadAverage: readonly [number, number];
}

export interface BenchResults {
  readonly settings: BenchSettings;
  readonly machine: MachineInfo;
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly session: { readonly conversationId: string; readonly stats: AgentSessionStats };
  readonly prefix: readonly PrefixEfficiencyResult[];
  readonly growth: readonly GrowthRow[];
  readonly overhead: readonly OverheadRow[];
  readonly memory: readonly MemoryRow[];
  /** Absent in runs without the stores part (and in results of older versions). */
  readonly stores?: StoreResult;
  /** Absent in runs without the wire part (and in results of older versions). */
  readonly wire?: WireResults;
}

/** The JSON front door's measured figures for the same session (part 1's, or measured here). */
export interface JsonFrontDoorTotals {
  readonly prefixEfficiency: number;
  readonly prefixEfficiencyOutsideCompaction: number;
  readonly cachedRatio: number;
  readonly providerCalls: number;
}

export interface WireResults {
  readonly prefix: readonly {
    readonly wire: WirePrefixResult;
    readonly json: JsonFrontDoorTotals;
  }[];
  readonly history: readonly WireHistoryRow[];
}
