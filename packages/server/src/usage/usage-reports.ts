import { ConversationNotFoundError } from "../conversation-errors.js";
import type { GatewayStore } from "../store/gateway-store.js";
import type {
  ConversationUsage,
  StoredProviderCall,
  UsageByModel,
} from "../store/provider-call-store.js";
import { defaultPriceSource } from "./default-prices.js";
import { PriceTable, costOf } from "./price-table.js";
import type { PriceEntry } from "./price-table.js";
import type {
  CallView,
  CallsPage,
  ConversationUsageView,
  ConversationsPage,
  CostView,
  DivergenceResponse,
  ModelUsageView,
  PriceView,
  UsageSummaryView,
  UsageTotalsView,
} from "./usage-api.js";

const invalidCursorMarker = Symbol.for("cursor.error.invalid-usage-cursor");

/** A `cursor` that this gateway did not hand out. */
export class InvalidCursorError extends Error {
  readonly [invalidCursorMarker] = true;
  constructor() {
    super("cursor is not one this gateway handed out (pass nextCursor of the previous page)");
    this.name = "InvalidCursorError";
  }
  static isInstance(error: unknown): error is InvalidCursorError {
    return typeof error === "object" && error !== null && invalidCursorMarker in error;
  }
}

const encodeCursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

function decodeCursor(cursor: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Falls through to the refusal.
  }
  throw new InvalidCursorError();
}

const iso = (ms: number) => new Date(ms).toISOString();
const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : null);

function priceView(price: PriceEntry): PriceView {
  return {
    provider: price.provider,
    model: price.model,
    input: price.input,
    cachedInput: price.cachedInput,
    cacheWrite5m: price.cacheWrite5m,
    cacheWrite1h: price.cacheWrite1h,
    output: price.output,
    ...(price.note === undefined ? {} : { note: price.note }),
    source: price.source.source,
    asOf: price.source.asOf,
  };
}

const zeroCost: CostView = { usd: 0, uncachedUsd: 0, savedUsd: 0 };
const addCost = (a: CostView, b: CostView): CostView => ({
  usd: a.usd + b.usd,
  uncachedUsd: a.uncachedUsd + b.uncachedUsd,
  savedUsd: a.savedUsd + b.savedUsd,
});

/**
 * The usage endpoints' answers, from the store's records and the price table. Costs are
 * computed when asked, from the current table: a corrected price applies to every record kept.
 */
export class UsageReports {
  readonly #store: GatewayStore;
  readonly #prices: PriceTable;
  readonly #retentionDays: number;

  constructor({
    store,
    prices = PriceTable.defaults(),
    retentionDays,
  }: {
    store: GatewayStore;
    prices?: PriceTable;
    retentionDays: number;
  }) {
    this.#store = store;
    this.#prices = prices;
    this.#retentionDays = retentionDays;
  }

  get prices(): PriceTable {
    return this.#prices;
  }

  /** A conversation's calls, oldest first; 404 when neither the conversation nor records exist. */
  async calls({
    tenant,
    conversationId,
    cursor,
    limit,
  }: {
    tenant: string;
    conversationId: string;
    cursor?: string;
    limit: number;
  }): Promise<CallsPage> {
    let afterSeq: number | undefined;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (typeof decoded.s !== "number" || !Number.isSafeInteger(decoded.s) || decoded.s < 0) {
        throw new InvalidCursorError();
      }
      afterSeq = decoded.s;
    }
    // One more than asked: whether there is a next page, without a second query.
    const rows = await this.#store.providerCalls.list({
      tenant,
      conversationId,
      ...(afterSeq === undefined ? {} : { afterSeq }),
      limit: limit + 1,
    });
    if (rows.length === 0 && afterSeq === undefined) {
      const head = await this.#store.headVersion(tenant, conversationId);
      if (head === undefined) throw new ConversationNotFoundError({ conversationId });
    }
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      conversationId,
      calls: page.map((row) => this.callView(row)),
      ...(rows.length > limit && last !== undefined
        ? { nextCursor: encodeCursor({ s: last.seq }) }
        : {}),
      retentionDays: this.#retentionDays,
    };
  }

  /** The prefix doctor's view kept with a call whose prefix broke. */
  async divergence({
    tenant,
    conversationId,
    callId,
  }: {
    tenant: string;
    conversationId: string;
    callId: string;
  }): Promise<DivergenceResponse | undefined> {
    const call = await this.#store.providerCalls.get({ tenant, conversationId, callId });
    if (call === undefined) return undefined;
    const text = call.hasDivergenceView
      ? await this.#store.providerCalls.divergenceView({ tenant, conversationId, callId })
      : undefined;
    if (text !== undefined) {
      const view = JSON.parse(text) as NonNullable<DivergenceResponse["view"]>;
      return {
        call: this.callView(call),
        view: {
          previousCallId: view.previousCallId,
          diff: view.diff,
          omittedDiffLines: view.omittedDiffLines,
        },
      };
    }
    return { call: this.callView(call), view: null, reason: missingViewReason(call) };
  }

  /** The tenant's conversations with records, most recently active first. */
  async conversations({
    tenant,
    cursor,
    limit,
  }: {
    tenant: string;
    cursor?: string;
    limit: number;
  }): Promise<ConversationsPage> {
    let after: { lastAt: number; conversationId: string } | undefined;
    if (cursor !== undefined) {
      const decoded = decodeCursor(cursor);
      if (typeof decoded.t !== "number" || typeof decoded.c !== "string") {
        throw new InvalidCursorError();
      }
      after = { lastAt: decoded.t, conversationId: decoded.c };
    }
    const rows = await this.#store.providerCalls.conversations({
      tenant,
      limit: limit + 1,
      ...(after === undefined ? {} : { after }),
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      conversations: page.map((row) => this.#conversationView(row)),
      ...(rows.length > limit && last !== undefined
        ? { nextCursor: encodeCursor({ t: last.lastAt, c: last.conversationId }) }
        : {}),
    };
  }

  /** The tenant-wide summary: cached ratio, cost and cost saved against the same tokens uncached. */
  async summary({ tenant }: { tenant: string }): Promise<UsageSummaryView> {
    const totals = await this.#store.providerCalls.totals({ tenant });
    const byModel = totals.byModel.map((model) => this.#modelView(model));
    return {
      conversations: totals.conversations,
      since: totals.firstAt === undefined ? null : iso(totals.firstAt),
      until: totals.lastAt === undefined ? null : iso(totals.lastAt),
      retentionDays: this.#retentionDays,
      ...combine(byModel, {
        calls: totals.calls,
        failedCalls: totals.failedCalls,
        brokenPrefixes: totals.brokenPrefixes,
      }),
      byModel,
      defaultPrices: defaultPriceSource,
    };
  }

  callView(call: StoredProviderCall): CallView {
    const price = this.#prices.lookup({ provider: call.provider, model: call.model });
    const usage = call.usage;
    return {
      callId: call.callId,
      seq: call.seq,
      runId: call.runId,
      kind: call.kind,
      attempt: call.attempt,
      epoch: call.epoch,
      at: iso(call.startedAt),
      provider: call.provider,
      model: call.model,
      catalogModel: call.catalogModel,
      outcome: call.outcome,
      ...(call.error === undefined ? {} : { error: call.error }),
      usage: usage ?? null,
      cachedRatio: usage === undefined ? null : ratio(usage.cachedInputTokens, usage.inputTokens),
      timings: {
        timeToFirstTokenMs: call.timeToFirstTokenMs ?? null,
        durationMs: call.durationMs,
        gatewayOverheadMs: call.gatewayOverheadMs,
      },
      prefix: {
        status: call.prefix.status,
        historyItems: call.prefix.historyItems,
        sharedItems: call.prefix.sharedItems ?? null,
        previousItems: call.prefix.previousItems ?? null,
        previousCallId: call.prefix.previousCallId ?? null,
        divergence: call.prefix.divergence ?? null,
        divergenceView: call.hasDivergenceView,
      },
      process: { id: call.process.id, startedAt: iso(call.process.startedAt) },
      cost: usage === undefined || price === undefined ? null : costOf(price, usage),
      price: price === undefined ? null : priceView(price),
    };
  }

  #modelView(model: UsageByModel): ModelUsageView {
    const price = this.#prices.lookup({ provider: model.provider, model: model.model });
    const tokens = {
      inputTokens: model.inputTokens,
      cachedInputTokens: model.cachedInputTokens,
      cacheWriteTokens: model.cacheWriteTokens,
      cacheWrite1hTokens: model.cacheWrite1hTokens,
      outputTokens: model.outputTokens,
    };
    return {
      provider: model.provider,
      model: model.model,
      calls: model.calls,
      failedCalls: 0,
      brokenPrefixes: 0,
      tokens,
      cachedRatio: ratio(model.cachedInputTokens, model.inputTokens),
      cost: price === undefined ? zeroCost : costOf(price, tokens),
      unpricedCalls: price === undefined ? model.calls : 0,
      price: price === undefined ? null : priceView(price),
    };
  }

  #conversationView(row: ConversationUsage): ConversationUsageView {
    const byModel = row.byModel.map((model) => this.#modelView(model));
    return {
      conversationId: row.conversationId,
      firstAt: iso(row.firstAt),
      lastAt: iso(row.lastAt),
      ...combine(byModel, {
        calls: row.calls,
        failedCalls: row.failedCalls,
        brokenPrefixes: row.brokenPrefixes,
      }),
      byModel,
    };
  }
}

/** Totals over models (counts of calls, failures and breaks come from the store). */
function combine(
  models: readonly ModelUsageView[],
  counts: { calls: number; failedCalls: number; brokenPrefixes: number },
): UsageTotalsView {
  const tokens = {
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 0,
  };
  let cost = zeroCost;
  let unpricedCalls = 0;
  for (const model of models) {
    tokens.inputTokens += model.tokens.inputTokens;
    tokens.cachedInputTokens += model.tokens.cachedInputTokens;
    tokens.cacheWriteTokens += model.tokens.cacheWriteTokens;
    tokens.cacheWrite1hTokens += model.tokens.cacheWrite1hTokens;
    tokens.outputTokens += model.tokens.outputTokens;
    cost = addCost(cost, model.cost);
    unpricedCalls += model.unpricedCalls;
  }
  return {
    ...counts,
    tokens,
    cachedRatio: ratio(tokens.cachedInputTokens, tokens.inputTokens),
    cost,
    unpricedCalls,
  };
}

/** Why a call has no prefix doctor's view (what the report page says instead). */
function missingViewReason(call: StoredProviderCall): string {
  switch (call.prefix.status) {
    case "broke":
      return "the gateway saw that this call's prompt does not start with the previous call's (their fingerprints differ), but the previous call's body was no longer in this process's memory when the call was made (it was sent before a restart, by another gateway process, or dropped from the in-memory request log), so where they diverge is not known; the prefix doctor's view is kept only for breaks seen with both bodies at hand";
    case "extends":
      return "this call's prompt starts with the whole previous call's: nothing diverged";
    case "first":
      return "this is the conversation's first recorded model call: there is nothing to compare it with";
    case "compaction":
      return "a compaction started a new epoch before this call: the prefix resets by design";
    case "not-compared":
      return "a summariser call: its prompt is a transcript of the conversation, not compared";
    default: {
      const exhaustive: never = call.prefix.status;
      throw new Error(`unknown prefix status ${String(exhaustive)}`);
    }
  }
}
