import type { CallView, CallsPage, PriceSourceView } from "@cursor/server";
import type { RecordedRequest } from "@cursor/testkit";
import { getJson } from "./gateway-http.js";

/** The gateway's own figures of a session, from its usage records (`GET …/calls`). */
export interface GatewayRecordTotals {
  readonly calls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  /** Σ cached ÷ Σ input (0 without input). */
  readonly cachedRatio: number;
  readonly costUsd: number;
  readonly savedUsd: number;
  /** The sources of the prices behind the costs (each once). */
  readonly prices: readonly PriceSourceView[];
  /** Whether every record equals, in order, what the fake provider counted for its call. */
  readonly matchesProvider: boolean;
  readonly firstMismatch?: string;
}

/** Every usage record of a conversation, oldest first (all pages). */
export async function readCallRecords(
  baseURL: string,
  conversationId: string,
): Promise<CallView[]> {
  const calls: CallView[] = [];
  let cursor: string | undefined;
  do {
    const page = (await getJson(
      baseURL,
      `/v1/conversations/${encodeURIComponent(conversationId)}/calls?limit=1000${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    )) as CallsPage;
    calls.push(...page.calls);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return calls;
}

/** What the fake provider counted for a request, in the records' shape (null: none reported). */
function providerUsage(request: RecordedRequest) {
  const usage = request.usage;
  if (usage === null) return null;
  return {
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    outputTokens: usage.outputTokens,
  };
}

/**
 * The records' totals, and whether they equal the fake provider's own count call by call: the
 * gateway must record exactly what the provider reported, once per call.
 */
export function gatewayRecordTotals({
  records,
  requests,
}: {
  records: readonly CallView[];
  requests: readonly RecordedRequest[];
}): GatewayRecordTotals {
  let firstMismatch: string | undefined;
  if (records.length !== requests.length) {
    firstMismatch = `${records.length} records for ${requests.length} provider calls`;
  }
  const sum = { input: 0, cached: 0, write: 0, output: 0, cost: 0, saved: 0 };
  const prices = new Map<string, PriceSourceView>();
  for (const [index, record] of records.entries()) {
    const usage = record.usage;
    sum.input += usage?.inputTokens ?? 0;
    sum.cached += usage?.cachedInputTokens ?? 0;
    sum.write += usage?.cacheWriteTokens ?? 0;
    sum.output += usage?.outputTokens ?? 0;
    sum.cost += record.cost?.usd ?? 0;
    sum.saved += record.cost?.savedUsd ?? 0;
    if (record.price !== null) {
      prices.set(`${record.price.source}\u0000${record.price.asOf}`, {
        source: record.price.source,
        asOf: record.price.asOf,
      });
    }
    const request = requests[index];
    if (firstMismatch === undefined && request !== undefined) {
      const recorded =
        usage === null
          ? null
          : {
              inputTokens: usage.inputTokens,
              cachedInputTokens: usage.cachedInputTokens,
              cacheWriteTokens: usage.cacheWriteTokens,
              outputTokens: usage.outputTokens,
            };
      const counted = providerUsage(request);
      if (JSON.stringify(recorded) !== JSON.stringify(counted)) {
        firstMismatch = `call ${index}: recorded ${JSON.stringify(recorded)}, the fake provider counted ${JSON.stringify(counted)}`;
      }
    }
  }
  return {
    calls: records.length,
    inputTokens: sum.input,
    cachedInputTokens: sum.cached,
    cacheWriteTokens: sum.write,
    outputTokens: sum.output,
    cachedRatio: sum.input === 0 ? 0 : sum.cached / sum.input,
    costUsd: sum.cost,
    savedUsd: sum.saved,
    prices: [...prices.values()],
    matchesProvider: firstMismatch === undefined,
    ...(firstMismatch === undefined ? {} : { firstMismatch }),
  };
}
