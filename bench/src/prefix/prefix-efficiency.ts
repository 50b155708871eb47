import type { AgentSession } from "@cursor/testkit";
import { driveSession } from "../harness/drive-session.js";
import type { DriveSessionResult, SessionCall } from "../harness/drive-session.js";
import { GatewayHarness } from "../harness/gateway-harness.js";
import { gatewayRecordTotals, readCallRecords } from "../harness/gateway-records.js";
import type { GatewayRecordTotals } from "../harness/gateway-records.js";
import type { BenchProvider } from "../harness/gateway-harness.js";
import { serializingAdapter } from "../harness/provider-adapters.js";
import { projectionVariants } from "./projection-variants.js";
import type { ProjectionVariant } from "./projection-variants.js";
import { VariantSimulation, reprojectionMismatch } from "./variant-simulation.js";
import type { VariantCallResult, VariantTotals } from "./variant-simulation.js";

export interface PrefixEfficiencyResult {
  readonly provider: BenchProvider;
  readonly contextWindow: number;
  readonly drive: DriveSessionResult;
  /** What the fake provider measured for the bodies the gateway really sent. */
  readonly measured: VariantTotals;
  readonly measuredCalls: readonly VariantCallResult[];
  /** Each projection of the same canonical histories, priced by the same simulation. */
  readonly variants: Readonly<Record<ProjectionVariant, VariantTotals>>;
  readonly variantCalls: Readonly<Record<ProjectionVariant, readonly VariantCallResult[]>>;
  /** Model calls whose `ours` re-projection was compared with the received body. */
  readonly reprojection: {
    readonly checked: number;
    readonly matched: number;
    readonly firstMismatch?: string;
  };
  /** The gateway's own figures, from its usage records; they must equal the fake provider's. */
  readonly gatewayRecords?: GatewayRecordTotals;
  readonly seconds: number;
}

/**
 * Part 1 of the benchmark: drives `session` through the real gateway against the simulated
 * provider cache and prices the same canonical histories under every projection variant.
 */
export async function measurePrefixEfficiency({
  provider,
  session,
  contextWindow,
  onProgress,
}: {
  provider: BenchProvider;
  session: AgentSession;
  contextWindow: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<PrefixEfficiencyResult> {
  const started = performance.now();
  let now = Date.parse("2026-11-29T09:00:00Z");
  const harness = await GatewayHarness.start({ provider, contextWindow, clock: () => now });
  const adapter = serializingAdapter(provider);
  const simulations = projectionVariants.map(
    (variant) => new VariantSimulation({ variant, provider, adapter }),
  );
  const measuredCalls: VariantCallResult[] = [];
  const reprojection: { checked: number; matched: number; firstMismatch?: string } = {
    checked: 0,
    matched: 0,
  };
  const onCall = (call: SessionCall) => {
    measuredCalls.push({
      index: call.index,
      compaction: call.compaction,
      summarizer: call.summarizer,
      inputTokens: call.cache.inputTokens,
      cachedTokens: call.cache.cachedTokens,
      bestPossibleCachedTokens: call.cache.bestPossibleCachedTokens,
    });
    for (const simulation of simulations) {
      if (simulation.variant === "ours" && call.messages !== undefined && !call.summarizer) {
        reprojection.checked += 1;
        const mismatch = reprojectionMismatch({ provider, call, body: simulation.bodyFor(call) });
        if (mismatch === null) reprojection.matched += 1;
        else reprojection.firstMismatch ??= `call ${call.index}: ${mismatch}`;
      }
      simulation.add(call);
    }
  };
  try {
    const drive = await driveSession({
      harness,
      session,
      setClock: (ms) => (now = ms),
      withHistory: true,
      onCall,
      ...(onProgress === undefined ? {} : { onProgress }),
    });
    const stats = harness.fake.cacheStats().total;
    const gatewayRecords = gatewayRecordTotals({
      records: await readCallRecords(harness.url, session.conversationId),
      requests: harness.fake.requests,
    });
    const outside = measuredCalls.filter((call) => !call.compaction);
    const outsideBest = outside.reduce((sum, call) => sum + call.bestPossibleCachedTokens, 0);
    const outsideCached = outside.reduce((sum, call) => sum + call.cachedTokens, 0);
    const byVariant = (pick: (simulation: VariantSimulation) => unknown) =>
      Object.fromEntries(simulations.map((s) => [s.variant, pick(s)]));
    return {
      provider,
      contextWindow,
      drive,
      measured: {
        ...stats,
        prefixEfficiencyOutsideCompaction: outsideBest === 0 ? 1 : outsideCached / outsideBest,
      },
      measuredCalls,
      variants: byVariant((s) => s.totals()) as Record<ProjectionVariant, VariantTotals>,
      variantCalls: byVariant((s) => s.calls) as Record<ProjectionVariant, VariantCallResult[]>,
      reprojection,
      gatewayRecords,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await harness.close();
  }
}
