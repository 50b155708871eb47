/**
 * The usage records of provider calls: one row per call the gateway made to a provider (a model
 * call of the loop or a compaction's summariser call), with what the provider reported, the
 * gateway's timings and how the call's prompt relates to the conversation's previous call.
 * O(1) bytes per call (plus, for a call whose prefix broke, the prefix doctor's capped view),
 * kept across restarts and pruned by the retention setting.
 */

/** A model call of the loop, or the summariser call of a compaction. */
export type ProviderCallKind = "model" | "summarizer";

/** How the provider call ended (the provider's side: its result may still be discarded). */
export type ProviderCallOutcome = "ok" | "failed" | "cancelled";

/**
 * The call's prompt against the conversation's previous model call:
 * - `first`: no earlier model call is recorded for the conversation;
 * - `extends`: it starts with the whole previous prompt (append-only, or identical on a retry);
 * - `broke`: it does not; the prefix cache can only read up to where they diverge;
 * - `compaction`: a compaction started a new epoch since: the prefix resets by design;
 * - `not-compared`: a summariser call (its prompt is a transcript, not the conversation's).
 */
export type PrefixStatus = "first" | "extends" | "broke" | "compaction" | "not-compared";

/** Token counts as the provider reported them. `inputTokens` includes cached and written ones. */
interface ProviderCallUsage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written with a one-hour lifetime (when the provider says). */
  readonly cacheWrite1hTokens?: number;
  readonly outputTokens: number;
}

export interface PrefixComparison {
  readonly status: PrefixStatus;
  /** Items of the body's append-only list (Responses `input`, Chat `messages`, Anthropic blocks). */
  readonly historyItems: number;
  /**
   * sha256 chain over the prompt's preamble (cache namespace, tools, instructions) and each
   * history item: what the next call is compared with when this call's body is gone.
   */
  readonly digest?: string;
  /** Leading history items shared with the previous model call, when known. */
  readonly sharedItems?: number;
  readonly previousItems?: number;
  readonly previousCallId?: string;
  /** Where the prefix broke, from the prefix doctor (when both bodies were at hand). */
  readonly divergence?: {
    readonly path: string;
    readonly causeKind: string;
    readonly cause: string;
  };
}

export interface ProviderCallRecord {
  /** Unique per call (a random id): recording one twice keeps the first. */
  readonly callId: string;
  readonly tenant: string;
  readonly conversationId: string;
  readonly runId: string;
  readonly kind: ProviderCallKind;
  /** 1 for a call; n for the loop's (n−1)th retry of it after a transient provider error. */
  readonly attempt: number;
  readonly epoch: number;
  /** Wall clock (ms since the epoch) when the gateway handed the request to the provider. */
  readonly startedAt: number;
  /** The catalog entry's provider (`openai-responses`, `openai-chat`, `anthropic`, `simulated`). */
  readonly provider: string;
  /** The model id sent to the provider. */
  readonly model: string;
  /** The catalog entry the request ran on (its `id`). */
  readonly catalogModel: string;
  readonly outcome: ProviderCallOutcome;
  readonly error?: { readonly code: string; readonly message: string; readonly retryable: boolean };
  /** Absent when the provider reported none (a call that failed before its usage arrived). */
  readonly usage?: ProviderCallUsage;
  readonly timeToFirstTokenMs?: number;
  readonly durationMs: number;
  readonly gatewayOverheadMs: number;
  readonly prefix: PrefixComparison;
  /** The prefix doctor's view of a broken prefix (JSON, capped), for the report page. */
  readonly divergenceView?: string;
  /** The gateway process that made the call (a restart shows as a new id). */
  readonly process: { readonly id: string; readonly startedAt: number };
}

/** A record as stored: `seq` orders a conversation's calls (and pages them). */
export interface StoredProviderCall extends Omit<ProviderCallRecord, "divergenceView"> {
  readonly seq: number;
  /** Whether the prefix doctor's view of this call is stored. */
  readonly hasDivergenceView: boolean;
}

/** Token sums of one provider model. */
export interface UsageByModel {
  readonly provider: string;
  readonly model: string;
  readonly calls: number;
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
}

export interface ConversationUsage {
  readonly conversationId: string;
  readonly firstAt: number;
  readonly lastAt: number;
  readonly calls: number;
  readonly failedCalls: number;
  readonly brokenPrefixes: number;
  readonly byModel: readonly UsageByModel[];
}

export interface TenantUsage {
  readonly conversations: number;
  readonly calls: number;
  readonly failedCalls: number;
  readonly brokenPrefixes: number;
  readonly firstAt?: number;
  readonly lastAt?: number;
  readonly byModel: readonly UsageByModel[];
}

/** Where a page of the conversation list continues: after this conversation. */
export interface ConversationUsageCursor {
  readonly lastAt: number;
  readonly conversationId: string;
}

/** The usage-record operations of a store (`GatewayStore.providerCalls`); both stores implement it. */
export interface ProviderCallStore {
  /** Stores a record; a call id already recorded is kept as it was (nothing recorded twice). */
  record(call: ProviderCallRecord): Promise<void>;
  /** A conversation's records, oldest first, after `afterSeq`. */
  list(input: {
    tenant: string;
    conversationId: string;
    afterSeq?: number;
    limit: number;
  }): Promise<readonly StoredProviderCall[]>;
  /** One call of a conversation, by its id. */
  get(input: {
    tenant: string;
    conversationId: string;
    callId: string;
  }): Promise<StoredProviderCall | undefined>;
  /** The conversation's most recent model call (what the next one is compared with). */
  lastModelCall(input: {
    tenant: string;
    conversationId: string;
  }): Promise<StoredProviderCall | undefined>;
  /** The prefix doctor's view stored with a call whose prefix broke. */
  divergenceView(input: {
    tenant: string;
    conversationId: string;
    callId: string;
  }): Promise<string | undefined>;
  /** The tenant's conversations with records, most recently active first. */
  conversations(input: {
    tenant: string;
    limit: number;
    after?: ConversationUsageCursor;
  }): Promise<readonly ConversationUsage[]>;
  /** The tenant's totals over every record kept. */
  totals(input: { tenant: string }): Promise<TenantUsage>;
  /** Deletes records of calls started before `before` (ms); returns how many. */
  prune(input: { before: number }): Promise<number>;
}

/** The longest texts a record keeps (error messages, causes, paths): O(1) bytes per call. */
export const recordTextLimits = {
  errorMessage: 1_000,
  cause: 1_000,
  path: 300,
  /** The prefix doctor's view of one broken prefix. */
  divergenceView: 32 * 1024,
} as const;

/** `text` cut to `limit` characters, with a mark when cut. */
export function capText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
