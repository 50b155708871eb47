import { afterEach, describe, expect, it } from "vitest";
import { GatewayMetrics } from "../http/metrics.js";
import { sampleCall } from "../store/provider-call-contract.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { startUsageRetention } from "./usage-retention.js";

const day = 24 * 60 * 60 * 1000;
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe("startUsageRetention", () => {
  it("deletes the records older than the retention at start and on every interval, and counts them", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    stores.push(store);
    let now = 2_000_000_000_000;
    for (const age of [40, 31, 29, 1]) {
      await store.providerCalls.record(sampleCall({ startedAt: now - age * day }));
    }
    const metrics = new GatewayMetrics({ processMetrics: false });
    const errors: string[] = [];
    const retention = startUsageRetention({
      store: store.providerCalls,
      retentionDays: 30,
      now: () => new Date(now),
      metrics,
      logger: { error: (_details, message) => errors.push(message) },
      intervalMs: 20,
    });
    expect(await retention.pruned).toBe(2);
    const ages = async () =>
      (await store.providerCalls.list({ tenant: "t", conversationId: "c", limit: 10 })).map(
        (call) => Math.round((now - call.startedAt) / day),
      );
    expect(await ages()).toEqual([29, 1]);
    // Two days later the 29-day-old record is past the retention: the next round deletes it.
    now += 2 * day;
    await expect.poll(ages, { timeout: 2_000, interval: 20 }).toEqual([3]);
    await retention.stop();
    expect(await metrics.render()).toContain("cursor_gateway_usage_records_pruned_total 3");
    expect(errors).toEqual([]);
  });
});
