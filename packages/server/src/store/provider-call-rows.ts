import type {
  PrefixStatus,
  ProviderCallKind,
  ProviderCallOutcome,
  ProviderCallRecord,
  StoredProviderCall,
  UsageByModel,
} from "./provider-call-store.js";
import { StoreError } from "./store-error.js";

/**
 * The `provider_calls` table's columns in insert order, the same in both stores (SQLite and
 * PostgreSQL differ only in column types and in how `error_retryable` is spelt).
 */
export const providerCallColumns = [
  "call_id",
  "tenant",
  "conversation_id",
  "run_id",
  "kind",
  "attempt",
  "epoch",
  "started_at",
  "provider",
  "model",
  "catalog_model",
  "outcome",
  "error_code",
  "error_message",
  "error_retryable",
  "input_tokens",
  "cached_input_tokens",
  "cache_write_tokens",
  "cache_write_1h_tokens",
  "output_tokens",
  "ttft_ms",
  "duration_ms",
  "overhead_ms",
  "prefix_status",
  "history_items",
  "prefix_digest",
  "shared_items",
  "previous_items",
  "previous_call_id",
  "divergence_path",
  "cause_kind",
  "cause",
  "divergence_view",
  "process_id",
  "process_started_at",
] as const;

/** What a read selects: every column but the (large) divergence view, which only says it exists. */
export const providerCallSelect = `seq, ${providerCallColumns
  .filter((column) => column !== "divergence_view")
  .join(", ")}, divergence_view IS NOT NULL AS has_divergence_view`;

export interface ProviderCallRow {
  seq: number;
  call_id: string;
  tenant: string;
  conversation_id: string;
  run_id: string;
  kind: string;
  attempt: number;
  epoch: number;
  started_at: number;
  provider: string;
  model: string;
  catalog_model: string;
  outcome: string;
  error_code: string | null;
  error_message: string | null;
  error_retryable: number | boolean | null;
  input_tokens: number | null;
  cached_input_tokens: number | null;
  cache_write_tokens: number | null;
  cache_write_1h_tokens: number | null;
  output_tokens: number | null;
  ttft_ms: number | null;
  duration_ms: number;
  overhead_ms: number;
  prefix_status: string;
  history_items: number;
  prefix_digest: string | null;
  shared_items: number | null;
  previous_items: number | null;
  previous_call_id: string | null;
  divergence_path: string | null;
  cause_kind: string | null;
  cause: string | null;
  process_id: string;
  process_started_at: number;
  has_divergence_view: number | boolean;
}

/** The insert's values, in `providerCallColumns` order. */
export function providerCallValues(
  call: ProviderCallRecord,
  retryable: (value: boolean) => number | boolean,
): unknown[] {
  const { usage, prefix, error } = call;
  return [
    call.callId,
    call.tenant,
    call.conversationId,
    call.runId,
    call.kind,
    call.attempt,
    call.epoch,
    Math.round(call.startedAt),
    call.provider,
    call.model,
    call.catalogModel,
    call.outcome,
    error?.code ?? null,
    error?.message ?? null,
    error === undefined ? null : retryable(error.retryable),
    usage?.inputTokens ?? null,
    usage?.cachedInputTokens ?? null,
    usage?.cacheWriteTokens ?? null,
    usage?.cacheWrite1hTokens ?? null,
    usage?.outputTokens ?? null,
    call.timeToFirstTokenMs ?? null,
    call.durationMs,
    call.gatewayOverheadMs,
    prefix.status,
    prefix.historyItems,
    prefix.digest ?? null,
    prefix.sharedItems ?? null,
    prefix.previousItems ?? null,
    prefix.previousCallId ?? null,
    prefix.divergence?.path ?? null,
    prefix.divergence?.causeKind ?? null,
    prefix.divergence?.cause ?? null,
    call.divergenceView ?? null,
    call.process.id,
    Math.round(call.process.startedAt),
  ];
}

const kinds: readonly string[] = ["model", "summarizer"] satisfies ProviderCallKind[];
const outcomes: readonly string[] = ["ok", "failed", "cancelled"] satisfies ProviderCallOutcome[];
const statuses: readonly string[] = [
  "first",
  "extends",
  "broke",
  "compaction",
  "not-compared",
] satisfies PrefixStatus[];

function oneOf<T extends string>(value: string, allowed: readonly string[], what: string): T {
  if (!allowed.includes(value)) {
    throw new StoreError({
      reason: "corrupt",
      message: `provider call record: unknown ${what} ${value}`,
    });
  }
  return value as T;
}

/** A stored row as a record (values checked: a row the gateway did not write is corrupt). */
export function storedProviderCall(row: ProviderCallRow): StoredProviderCall {
  const usage =
    row.input_tokens === null
      ? undefined
      : {
          inputTokens: row.input_tokens,
          cachedInputTokens: row.cached_input_tokens ?? 0,
          cacheWriteTokens: row.cache_write_tokens ?? 0,
          ...(row.cache_write_1h_tokens === null
            ? {}
            : { cacheWrite1hTokens: row.cache_write_1h_tokens }),
          outputTokens: row.output_tokens ?? 0,
        };
  return {
    seq: Number(row.seq),
    callId: row.call_id,
    tenant: row.tenant,
    conversationId: row.conversation_id,
    runId: row.run_id,
    kind: oneOf<ProviderCallKind>(row.kind, kinds, "kind"),
    attempt: row.attempt,
    epoch: row.epoch,
    startedAt: Number(row.started_at),
    provider: row.provider,
    model: row.model,
    catalogModel: row.catalog_model,
    outcome: oneOf<ProviderCallOutcome>(row.outcome, outcomes, "outcome"),
    ...(row.error_code === null
      ? {}
      : {
          error: {
            code: row.error_code,
            message: row.error_message ?? "",
            retryable: row.error_retryable === true || row.error_retryable === 1,
          },
        }),
    ...(usage === undefined ? {} : { usage }),
    ...(row.ttft_ms === null ? {} : { timeToFirstTokenMs: row.ttft_ms }),
    durationMs: row.duration_ms,
    gatewayOverheadMs: row.overhead_ms,
    prefix: {
      status: oneOf<PrefixStatus>(row.prefix_status, statuses, "prefix status"),
      historyItems: row.history_items,
      ...(row.prefix_digest === null ? {} : { digest: row.prefix_digest }),
      ...(row.shared_items === null ? {} : { sharedItems: row.shared_items }),
      ...(row.previous_items === null ? {} : { previousItems: row.previous_items }),
      ...(row.previous_call_id === null ? {} : { previousCallId: row.previous_call_id }),
      ...(row.divergence_path === null
        ? {}
        : {
            divergence: {
              path: row.divergence_path,
              causeKind: row.cause_kind ?? "",
              cause: row.cause ?? "",
            },
          }),
    },
    process: { id: row.process_id, startedAt: Number(row.process_started_at) },
    hasDivergenceView: row.has_divergence_view === true || row.has_divergence_view === 1,
  };
}

/** The sums a by-model aggregate selects (both stores: `SUM` over nullable token columns). */
export const usageSums = `COUNT(*) AS calls,
  COALESCE(SUM(input_tokens), 0) AS input_tokens,
  COALESCE(SUM(cached_input_tokens), 0) AS cached_input_tokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens,
  COALESCE(SUM(cache_write_1h_tokens), 0) AS cache_write_1h_tokens,
  COALESCE(SUM(output_tokens), 0) AS output_tokens`;

export interface UsageSumRow {
  provider: string;
  model: string;
  calls: number | string;
  input_tokens: number | string;
  cached_input_tokens: number | string;
  cache_write_tokens: number | string;
  cache_write_1h_tokens: number | string;
  output_tokens: number | string;
}

export function usageByModel(row: UsageSumRow): UsageByModel {
  return {
    provider: row.provider,
    model: row.model,
    calls: Number(row.calls),
    inputTokens: Number(row.input_tokens),
    cachedInputTokens: Number(row.cached_input_tokens),
    cacheWriteTokens: Number(row.cache_write_tokens),
    cacheWrite1hTokens: Number(row.cache_write_1h_tokens),
    outputTokens: Number(row.output_tokens),
  };
}
