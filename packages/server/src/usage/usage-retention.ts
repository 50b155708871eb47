import type { GatewayLogger } from "../conversation-service-options.js";
import type { GatewayMetrics } from "../http/metrics.js";
import type { ProviderCallStore } from "../store/provider-call-store.js";

const dayMs = 24 * 60 * 60 * 1000;
/** How often records older than the retention are deleted (and once at start). */
const usagePruneIntervalMs = 60 * 60 * 1000;

/**
 * Deletes usage records older than `retentionDays` at start and every hour (each process of a
 * deployment does; deleting what another one deleted is a no-op). Returns the stop function.
 */
export function startUsageRetention({
  store,
  retentionDays,
  now,
  metrics,
  logger,
  intervalMs = usagePruneIntervalMs,
}: {
  store: ProviderCallStore;
  retentionDays: number;
  now: () => Date;
  metrics: GatewayMetrics;
  logger: GatewayLogger;
  intervalMs?: number;
}): { readonly pruned: Promise<number>; stop(): Promise<void> } {
  let running: Promise<number> = Promise.resolve(0);
  const prune = () => {
    running = running.then(async () => {
      try {
        const deleted = await store.prune({ before: now().getTime() - retentionDays * dayMs });
        if (deleted > 0)
          metrics.increment("cursor_gateway_usage_records_pruned_total", {}, deleted);
        return deleted;
      } catch (error) {
        logger.error({ err: String(error) }, "could not prune the usage records");
        return 0;
      }
    });
    return running;
  };
  const pruned = prune();
  const timer = setInterval(() => void prune(), intervalMs);
  timer.unref();
  return {
    pruned,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
