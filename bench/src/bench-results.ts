import type { AgentSessionStats } from "@cursor/testkit";
import type { GrowthRow } from "./growth/turn-cost-growth.js";
import type { IsolationRow } from "./isolation/large-content-isolation.js";
import type { LoadResult } from "./load/gateway-load.js";
import type { MemoryRow } from "./overhead/conversation-memory.js";
import type { OverheadRow } from "./overhead/gateway-overhead.js";
import type { ProfileRow } from "./profile/cpu-profile.js";
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
  /**
   * Samples per path at 1 000 turns of history and more, where a call takes ~150 ms and the
   * measured conversations' setup is 5 MB each (absent: `overheadSamples`).
   */
  readonly overheadSamplesLong?: number;
  /** Calls on every path before the measured ones, on conversations of their own (JIT warm-up). */
  readonly overheadWarmupCalls?: number;
  /** Conversations streaming at once in the overhead part (each history length at each). */
  readonly overheadConcurrency?: readonly number[];
  /** History lengths of the appendix's CPU profiles, and requests profiled at each. */
  readonly profileHistoryTurns?: readonly number[];
  readonly profileRequests?: number;
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
  /** Part 8: image turns of the large tenant, MiB per image, samples per measurement. */
  readonly isolation: {
    readonly largeTurns: number;
    readonly imageMiB: number;
    readonly samples: number;
  };
  /** Part 9: conversations, user turns each (one tool round each), conversations at once. */
  readonly load?: {
    readonly conversations: number;
    readonly turns: number;
    readonly concurrency: number;
  };
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
  /** Absent in results written before part 8 existed. */
  readonly isolation?: readonly IsolationRow[];
  /** Absent in runs without the profile part (and in results of older versions). */
  readonly profile?: readonly ProfileRow[];
  /** Absent in runs without the load part (and in results of older versions). */
  readonly load?: LoadResult;
  /** Measurements that failed (the run went on without them). */
  readonly failures?: readonly string[];
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
