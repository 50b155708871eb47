import type Database from "better-sqlite3";
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

/** Rows deleted per statement while pruning: the writer is never held for long. */
const pruneBatch = 2_000;

/** The usage records of the SQLite store (`provider_calls`, migration 4). */
export class SqliteProviderCalls implements ProviderCallStore {
  readonly #statements: ReturnType<typeof prepare>;

  /** Told of every committed write (the store's WAL checkpoints follow them). */
  readonly #onWrite: () => void;

  constructor(db: Database.Database, onWrite: () => void = () => undefined) {
    this.#statements = prepare(db);
    this.#onWrite = onWrite;
  }

  async record(call: ProviderCallRecord): Promise<void> {
    this.#statements.insert.run(...providerCallValues(call, (value) => (value ? 1 : 0)));
    this.#onWrite();
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
    const rows = this.#statements.list.all(
      tenant,
      conversationId,
      afterSeq ?? 0,
      limit,
    ) as ProviderCallRow[];
    return rows.map(storedProviderCall);
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
    const row = this.#statements.get.get(callId, tenant, conversationId) as
      ProviderCallRow | undefined;
    return row === undefined ? undefined : storedProviderCall(row);
  }

  async lastModelCall({
    tenant,
    conversationId,
  }: {
    tenant: string;
    conversationId: string;
  }): Promise<StoredProviderCall | undefined> {
    const row = this.#statements.lastModelCall.get(tenant, conversationId) as
      ProviderCallRow | undefined;
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
    const row = this.#statements.divergenceView.get(tenant, conversationId, callId) as
      { divergence_view: string | null } | undefined;
    return row?.divergence_view ?? undefined;
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
    const page = this.#statements.conversations.all({
      tenant,
      limit,
      afterLastAt: after?.lastAt ?? null,
      afterId: after?.conversationId ?? "",
    }) as {
      conversation_id: string;
      first_at: number;
      last_at: number;
      calls: number;
      failed_calls: number;
      broken_prefixes: number;
    }[];
    if (page.length === 0) return [];
    const sums = this.#statements.conversationModels.all(
      tenant,
      JSON.stringify(page.map((row) => row.conversation_id)),
    ) as (UsageSumRow & { conversation_id: string })[];
    return page.map((row) => ({
      conversationId: row.conversation_id,
      firstAt: row.first_at,
      lastAt: row.last_at,
      calls: row.calls,
      failedCalls: row.failed_calls,
      brokenPrefixes: row.broken_prefixes,
      byModel: sums.filter((sum) => sum.conversation_id === row.conversation_id).map(usageByModel),
    }));
  }

  async totals({ tenant }: { tenant: string }): Promise<TenantUsage> {
    const totals = this.#statements.totals.get(tenant) as {
      conversations: number;
      calls: number;
      failed_calls: number | null;
      broken_prefixes: number | null;
      first_at: number | null;
      last_at: number | null;
    };
    const byModel = (this.#statements.tenantModels.all(tenant) as UsageSumRow[]).map(usageByModel);
    return {
      conversations: totals.conversations,
      calls: totals.calls,
      failedCalls: totals.failed_calls ?? 0,
      brokenPrefixes: totals.broken_prefixes ?? 0,
      ...(totals.first_at === null ? {} : { firstAt: totals.first_at }),
      ...(totals.last_at === null ? {} : { lastAt: totals.last_at }),
      byModel,
    };
  }

  async prune({ before }: { before: number }): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { changes } = this.#statements.prune.run(before, pruneBatch);
      this.#onWrite();
      deleted += changes;
      if (changes < pruneBatch) return deleted;
    }
  }
}

function prepare(db: Database.Database) {
  const placeholders = providerCallColumns.map(() => "?").join(", ");
  return {
    // Only the call id's uniqueness is ignored: any other constraint still fails loudly.
    insert: db.prepare(
      `INSERT INTO provider_calls (${providerCallColumns.join(", ")}) VALUES (${placeholders})
       ON CONFLICT (call_id) DO NOTHING`,
    ),
    list: db.prepare(
      `SELECT ${providerCallSelect} FROM provider_calls
       WHERE tenant = ? AND conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    get: db.prepare(
      `SELECT ${providerCallSelect} FROM provider_calls
       WHERE call_id = ? AND tenant = ? AND conversation_id = ?`,
    ),
    lastModelCall: db.prepare(
      `SELECT ${providerCallSelect} FROM provider_calls
       WHERE tenant = ? AND conversation_id = ? AND kind = 'model' ORDER BY seq DESC LIMIT 1`,
    ),
    divergenceView: db.prepare(
      `SELECT divergence_view FROM provider_calls WHERE tenant = ? AND conversation_id = ? AND call_id = ?`,
    ),
    conversations: db.prepare(
      `SELECT conversation_id, MIN(started_at) AS first_at, MAX(started_at) AS last_at,
              COUNT(*) AS calls, SUM(outcome <> 'ok') AS failed_calls,
              SUM(prefix_status = 'broke') AS broken_prefixes
       FROM provider_calls WHERE tenant = @tenant GROUP BY conversation_id
       HAVING @afterLastAt IS NULL OR MAX(started_at) < @afterLastAt
           OR (MAX(started_at) = @afterLastAt AND conversation_id > @afterId)
       ORDER BY last_at DESC, conversation_id LIMIT @limit`,
    ),
    conversationModels: db.prepare(
      `SELECT conversation_id, provider, model, ${usageSums} FROM provider_calls
       WHERE tenant = ? AND conversation_id IN (SELECT value FROM json_each(?))
       GROUP BY conversation_id, provider, model ORDER BY conversation_id, provider, model`,
    ),
    totals: db.prepare(
      `SELECT COUNT(DISTINCT conversation_id) AS conversations, COUNT(*) AS calls,
              SUM(outcome <> 'ok') AS failed_calls, SUM(prefix_status = 'broke') AS broken_prefixes,
              MIN(started_at) AS first_at, MAX(started_at) AS last_at
       FROM provider_calls WHERE tenant = ?`,
    ),
    tenantModels: db.prepare(
      `SELECT provider, model, ${usageSums} FROM provider_calls WHERE tenant = ?
       GROUP BY provider, model ORDER BY provider, model`,
    ),
    prune: db.prepare(
      `DELETE FROM provider_calls WHERE seq IN
         (SELECT seq FROM provider_calls WHERE started_at < ? ORDER BY started_at LIMIT ?)`,
    ),
  };
}
