import type { Pool } from "pg";
import {
  providerCallColumns,
  providerCallSelect,
  providerCallValues,
  storedProviderCall,
  usageByModel,
  usageSums,
} from "./provider-call-rows.js";
import type { ProviderCallRow, UsageSumRow } from "./provider-call-rows.js";
import type {
  ConversationUsage,
  ConversationUsageCursor,
  ProviderCallRecord,
  ProviderCallStore,
  StoredProviderCall,
  TenantUsage,
} from "./provider-call-store.js";

/** Rows deleted per statement while pruning: no long-held locks on a shared database. */
const pruneBatch = 2_000;

// SUM over bigint is numeric (a string in `pg`); the casts keep every figure a number.
const sums = usageSums.replace(/COALESCE\(SUM\((\w+)\), 0\)/g, "COALESCE(SUM($1), 0)::bigint");

/** The usage records of the PostgreSQL store (`provider_calls`, migration 4). */
export class PostgresProviderCalls implements ProviderCallStore {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async record(call: ProviderCallRecord): Promise<void> {
    await this.#pool.query({
      name: "cgw-record-call",
      text: `INSERT INTO provider_calls (${providerCallColumns.join(", ")})
             VALUES (${providerCallColumns.map((_, index) => `$${index + 1}`).join(", ")})
             ON CONFLICT (call_id) DO NOTHING`,
      values: providerCallValues(call, (value) => value),
    });
  }

  async list({
    tenant,
    conversationId,
    afterSeq,
    limit,
  }: {
    tenant: string;
    conversationId: string;
    afterSeq?: number;
    limit: number;
  }): Promise<readonly StoredProviderCall[]> {
    const result = await this.#pool.query<ProviderCallRow>({
      name: "cgw-list-calls",
      text: `SELECT ${providerCallSelect} FROM provider_calls
             WHERE tenant = $1 AND conversation_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
      values: [tenant, conversationId, afterSeq ?? 0, limit],
    });
    return result.rows.map(storedProviderCall);
  }

  async get({
    tenant,
    conversationId,
    callId,
  }: {
    tenant: string;
    conversationId: string;
    callId: string;
  }): Promise<StoredProviderCall | undefined> {
    const result = await this.#pool.query<ProviderCallRow>({
      name: "cgw-get-call",
      text: `SELECT ${providerCallSelect} FROM provider_calls
             WHERE call_id = $1 AND tenant = $2 AND conversation_id = $3`,
      values: [callId, tenant, conversationId],
    });
    const row = result.rows[0];
    return row === undefined ? undefined : storedProviderCall(row);
  }

  async lastModelCall({
    tenant,
    conversationId,
  }: {
    tenant: string;
    conversationId: string;
  }): Promise<StoredProviderCall | undefined> {
    const result = await this.#pool.query<ProviderCallRow>({
      name: "cgw-last-model-call",
      text: `SELECT ${providerCallSelect} FROM provider_calls
             WHERE tenant = $1 AND conversation_id = $2 AND kind = 'model' ORDER BY seq DESC LIMIT 1`,
      values: [tenant, conversationId],
    });
    const row = result.rows[0];
    return row === undefined ? undefined : storedProviderCall(row);
  }

  async divergenceView({
    tenant,
    conversationId,
    callId,
  }: {
    tenant: string;
    conversationId: string;
    callId: string;
  }): Promise<string | undefined> {
    const result = await this.#pool.query<{ divergence_view: string | null }>({
      name: "cgw-divergence-view",
      text: `SELECT divergence_view FROM provider_calls
             WHERE tenant = $1 AND conversation_id = $2 AND call_id = $3`,
      values: [tenant, conversationId, callId],
    });
    return result.rows[0]?.divergence_view ?? undefined;
  }

  async conversations({
    tenant,
    limit,
    after,
  }: {
    tenant: string;
    limit: number;
    after?: ConversationUsageCursor;
  }): Promise<readonly ConversationUsage[]> {
    const page = await this.#pool.query<{
      conversation_id: string;
      first_at: number;
      last_at: number;
      calls: number;
      failed_calls: number;
      broken_prefixes: number;
    }>({
      name: "cgw-usage-conversations",
      text: `SELECT conversation_id, MIN(started_at) AS first_at, MAX(started_at) AS last_at,
                    COUNT(*) AS calls, COUNT(*) FILTER (WHERE outcome <> 'ok') AS failed_calls,
                    COUNT(*) FILTER (WHERE prefix_status = 'broke') AS broken_prefixes
             FROM provider_calls WHERE tenant = $1 GROUP BY conversation_id
             HAVING $2::bigint IS NULL OR MAX(started_at) < $2::bigint
                 OR (MAX(started_at) = $2::bigint AND conversation_id COLLATE "C" > $3)
             ORDER BY last_at DESC, conversation_id COLLATE "C" LIMIT $4`,
      values: [tenant, after?.lastAt ?? null, after?.conversationId ?? "", limit],
    });
    if (page.rows.length === 0) return [];
    const models = await this.#pool.query<UsageSumRow & { conversation_id: string }>({
      name: "cgw-usage-conversation-models",
      text: `SELECT conversation_id, provider, model, ${sums} FROM provider_calls
             WHERE tenant = $1 AND conversation_id = ANY($2::text[])
             GROUP BY conversation_id, provider, model
             ORDER BY conversation_id COLLATE "C", provider COLLATE "C", model COLLATE "C"`,
      values: [tenant, page.rows.map((row) => row.conversation_id)],
    });
    return page.rows.map((row) => ({
      conversationId: row.conversation_id,
      firstAt: row.first_at,
      lastAt: row.last_at,
      calls: row.calls,
      failedCalls: row.failed_calls,
      brokenPrefixes: row.broken_prefixes,
      byModel: models.rows
        .filter((sum) => sum.conversation_id === row.conversation_id)
        .map(usageByModel),
    }));
  }

  async totals({ tenant }: { tenant: string }): Promise<TenantUsage> {
    const totals = await this.#pool.query<{
      conversations: number;
      calls: number;
      failed_calls: number;
      broken_prefixes: number;
      first_at: number | null;
      last_at: number | null;
    }>({
      name: "cgw-usage-totals",
      text: `SELECT COUNT(DISTINCT conversation_id) AS conversations, COUNT(*) AS calls,
                    COUNT(*) FILTER (WHERE outcome <> 'ok') AS failed_calls,
                    COUNT(*) FILTER (WHERE prefix_status = 'broke') AS broken_prefixes,
                    MIN(started_at) AS first_at, MAX(started_at) AS last_at
             FROM provider_calls WHERE tenant = $1`,
      values: [tenant],
    });
    const models = await this.#pool.query<UsageSumRow>({
      name: "cgw-usage-tenant-models",
      text: `SELECT provider, model, ${sums} FROM provider_calls WHERE tenant = $1
             GROUP BY provider, model ORDER BY provider COLLATE "C", model COLLATE "C"`,
      values: [tenant],
    });
    const row = totals.rows[0]!;
    return {
      conversations: row.conversations,
      calls: row.calls,
      failedCalls: row.failed_calls,
      brokenPrefixes: row.broken_prefixes,
      ...(row.first_at === null ? {} : { firstAt: row.first_at }),
      ...(row.last_at === null ? {} : { lastAt: row.last_at }),
      byModel: models.rows.map(usageByModel),
    };
  }

  async prune({ before }: { before: number }): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = await this.#pool.query({
        name: "cgw-prune-calls",
        text: `DELETE FROM provider_calls WHERE seq IN
                 (SELECT seq FROM provider_calls WHERE started_at < $1 ORDER BY started_at LIMIT $2)`,
        values: [before, pruneBatch],
      });
      const changes = result.rowCount ?? 0;
      deleted += changes;
      if (changes < pruneBatch) return deleted;
    }
  }
}
