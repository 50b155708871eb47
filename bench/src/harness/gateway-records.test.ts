import type { CallView } from "@cursor/server";
import type { RecordedRequest } from "@cursor/testkit";
import { describe, expect, it } from "vitest";
import { gatewayRecordTotals } from "./gateway-records.js";

const usage = (input: number, cached: number) => ({
  inputTokens: input,
  cachedInputTokens: cached,
  cacheWriteTokens: 0,
  outputTokens: 10,
});

const record = (input: number, cached: number, usd: number): CallView =>
  ({
    usage: usage(input, cached),
    cost: { usd, uncachedUsd: usd * 2, savedUsd: usd },
    price: { source: "built-in", asOf: "2025-11" },
  }) as unknown as CallView;

const request = (input: number, cached: number) =>
  ({ usage: usage(input, cached) }) as unknown as RecordedRequest;

describe("gatewayRecordTotals", () => {
  it("adds up the records and checks them call by call against the fake provider's count", () => {
    const totals = gatewayRecordTotals({
      records: [record(2000, 0, 0.01), record(3000, 1024, 0.02)],
      requests: [request(2000, 0), request(3000, 1024)],
    });
    expect(totals).toMatchObject({
      calls: 2,
      inputTokens: 5000,
      cachedInputTokens: 1024,
      outputTokens: 20,
      cachedRatio: 1024 / 5000,
      matchesProvider: true,
      prices: [{ source: "built-in", asOf: "2025-11" }],
    });
    expect(totals.costUsd).toBeCloseTo(0.03, 12);
  });

  it("names the first call whose record differs, and a missing or extra record", () => {
    expect(
      gatewayRecordTotals({
        records: [record(2000, 0, 0.01), record(3000, 1000, 0.02)],
        requests: [request(2000, 0), request(3000, 1024)],
      }),
    ).toMatchObject({ matchesProvider: false, firstMismatch: expect.stringMatching(/^call 1: /) });
    expect(
      gatewayRecordTotals({
        records: [record(2000, 0, 0.01)],
        requests: [request(2000, 0), request(3000, 1024)],
      }),
    ).toMatchObject({ matchesProvider: false, firstMismatch: "1 records for 2 provider calls" });
  });
});
