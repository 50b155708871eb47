// The JSON shapes of the usage endpoints (`GET /v1/conversations/{id}/calls`, `GET /v1/usage`,
// `GET /v1/usage/conversations`, a call's divergence). No imports: the report page (browser
// code) reads these types too.

export interface PriceSourceView {
  readonly source: string;
  readonly asOf: string;
}

/** The price a cost was computed with (USD per million tokens) and where it comes from. */
export interface PriceView extends PriceSourceView {
  readonly provider: string;
  readonly model: string;
  readonly input: number;
  readonly cachedInput: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
  readonly note?: string;
}

export interface CostView {
  readonly usd: number;
  /** The same tokens with nothing read from or written to a cache. */
  readonly uncachedUsd: number;
  readonly savedUsd: number;
}

export interface TokensView {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens?: number;
  readonly outputTokens: number;
}

export type PrefixStatusView = "first" | "extends" | "broke" | "compaction" | "not-compared";

export interface CallView {
  readonly callId: string;
  readonly seq: number;
  readonly runId: string;
  readonly kind: "model" | "summarizer";
  readonly attempt: number;
  readonly epoch: number;
  /** When the gateway handed the request to the provider (ISO 8601). */
  readonly at: string;
  readonly provider: string;
  readonly model: string;
  readonly catalogModel: string;
  readonly outcome: "ok" | "failed" | "cancelled";
  readonly error?: { readonly code: string; readonly message: string; readonly retryable: boolean };
  /** What the provider reported; null when it reported nothing (a call failed before). */
  readonly usage: TokensView | null;
  /** cached ÷ input tokens; null without usage or input. */
  readonly cachedRatio: number | null;
  readonly timings: {
    readonly timeToFirstTokenMs: number | null;
    readonly durationMs: number;
    readonly gatewayOverheadMs: number;
  };
  readonly prefix: {
    readonly status: PrefixStatusView;
    readonly historyItems: number;
    readonly sharedItems: number | null;
    readonly previousItems: number | null;
    readonly previousCallId: string | null;
    readonly divergence: {
      readonly path: string;
      readonly causeKind: string;
      readonly cause: string;
    } | null;
    /** Whether the prefix doctor's view of the break is kept (`…/calls/{callId}/divergence`). */
    readonly divergenceView: boolean;
  };
  readonly process: { readonly id: string; readonly startedAt: string };
  /** null: no usage, or no price for the model (`price` says which). */
  readonly cost: CostView | null;
  readonly price: PriceView | null;
}

export interface CallsPage {
  readonly conversationId: string;
  readonly calls: readonly CallView[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
  readonly retentionDays: number;
}

export interface UsageTotalsView {
  readonly calls: number;
  readonly failedCalls: number;
  readonly brokenPrefixes: number;
  readonly tokens: Required<TokensView>;
  readonly cachedRatio: number | null;
  /** Over the calls whose model has a price; `unpricedCalls` had none. */
  readonly cost: CostView;
  readonly unpricedCalls: number;
}

export interface ModelUsageView extends UsageTotalsView {
  readonly provider: string;
  readonly model: string;
  readonly price: PriceView | null;
}

export interface ConversationUsageView extends UsageTotalsView {
  readonly conversationId: string;
  readonly firstAt: string;
  readonly lastAt: string;
  readonly byModel: readonly ModelUsageView[];
}

export interface ConversationsPage {
  readonly conversations: readonly ConversationUsageView[];
  readonly nextCursor?: string;
}

export interface UsageSummaryView extends UsageTotalsView {
  readonly conversations: number;
  /** The oldest and newest record kept (ISO 8601), null without records. */
  readonly since: string | null;
  readonly until: string | null;
  readonly retentionDays: number;
  readonly byModel: readonly ModelUsageView[];
  /** The default price table's source: shown wherever a cost is shown. */
  readonly defaultPrices: PriceSourceView;
}

/** The prefix doctor's comparison as the gateway kept it (its `BodyDiff`). */
export interface BodyDiffView {
  readonly format: string;
  readonly previous: {
    readonly segments: number;
    readonly tokens: number;
    readonly historyItems: number;
  };
  readonly current: {
    readonly segments: number;
    readonly tokens: number;
    readonly historyItems: number;
  };
  readonly namespaceChanges: readonly {
    readonly field: string;
    readonly previous: unknown;
    readonly current: unknown;
  }[];
  readonly sharedSegments: number;
  readonly sharedTokens: number;
  readonly sharedHistoryItems: number;
  readonly divergence?: {
    readonly segment: number;
    readonly label: string;
    readonly previousLabel: string;
    readonly path: string;
    readonly reason: string;
  };
  readonly cause: { readonly kind: string; readonly summary: string };
  readonly diff: readonly string[];
}

export interface DivergenceResponse {
  readonly call: CallView;
  /** The prefix doctor's view, or null when it was not kept (`reason` says why). */
  readonly view: {
    readonly previousCallId: string;
    readonly diff: BodyDiffView;
    readonly omittedDiffLines: number;
  } | null;
  readonly reason?: string;
}
