import { createHash, randomInt } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { Client as PgClient, DatabaseError, Pool, TypeOverrides } from "pg";
import type { PoolClient, PoolConfig } from "pg";
import { InvalidHistoryError, decodeCanonicalMessage, recentCanonicalJson } from "@cursor/run";
import type { CanonicalMessage, JsonValue } from "@cursor/run";
import { conversationColumns, storedConversation } from "./conversation-rows.js";
import type { ConversationRow } from "./conversation-rows.js";
import { databaseLabel, databasePassword } from "./database-url.js";
import type {
  AppendMessagesInput,
  ClientBlobsInput,
  GatewayStore,
  HeadVersion,
  RecordRunInput,
  StartEpochInput,
  StoredConversation,
  StoredHistoryBytes,
  StoredRun,
  StoredTurn,
} from "./gateway-store.js";
import { blobChunkBytes } from "./migrations.js";
import { postgresMigrations } from "./postgres-migrations.js";
import { PostgresProviderCalls } from "./postgres-provider-calls.js";
import type { ProviderCallStore } from "./provider-call-store.js";
import { StoreError } from "./store-error.js";

/**
 * The advisory-lock namespace of the gateway (the first key of every two-key advisory lock it
 * takes): key 0 serialises migrations, keys 1..2^31-1 are the processes' liveness locks.
 */
export const advisoryNamespace = 0x43475457; // "CGTW"
const migrationLockKey = 0;

/** Where the store reports what no caller can be told (a dropped idle connection). */
export interface PostgresStoreLogger {
  error(details: Record<string, unknown>, message: string): void;
}

export interface PostgresStoreOptions {
  /** A `postgres://` / `postgresql://` URL (`CURSOR_GATEWAY_DATABASE_URL`). */
  readonly url: string;
  /** Connections of this process's pool (default 10), plus one for its liveness lock. */
  readonly poolSize?: number;
  /**
   * A transaction left open this long is ended by the server (its locks released): a process
   * frozen in a transaction cannot block a conversation longer than its run lease. Default 30 s.
   */
  readonly idleTransactionTimeoutMs?: number;
  readonly logger?: PostgresStoreLogger;
}

/** A message row of the current epoch and where its blob's bytes are. */
interface MessageBlobRow {
  message_id: string;
  blob_id: string;
  /** NULL when the blob row is missing. */
  size: number | null;
  chunk_count: number | null;
  /** The bytes of an unchunked blob (NULL for a chunked one). */
  bytes: Buffer | null;
}

interface RunRow {
  run_id: string;
  status: StoredRun["status"];
  error: string | null;
  final_text: string | null;
}

/** Rows per multi-row statement: well under the protocol's 65 535 parameters. */
const rowsPerStatement = 500;
/** A deadlock or serialization failure aborts the whole transaction: it is safe to run again. */
const retryableCodes = new Set(["40001", "40P01"]);
const maxTransactionAttempts = 4;

/**
 * No other process holds the conversation's run lease: a process whose lease was taken over
 * (it was frozen past its lease) cannot write under the new holder's run. Parameters: $1 tenant,
 * $2 conversation id, and the holder at `holderParam`.
 */
const noOtherHolder = (holderParam: number) =>
  `NOT EXISTS (SELECT 1 FROM run_locks l WHERE l.tenant = $1 AND l.conversation_id = $2
     AND l.holder <> $${holderParam})`;

/**
 * The store for several gateway processes on one PostgreSQL database (`pg` pool). Every write
 * that moves a head is one transaction guarded by the head it started from; the run slot of a
 * conversation is a lease shared by all processes, lost when it lapses or at once when its
 * holder's liveness session ends (the process died); blobs are content-addressed and shared.
 */
export class PostgresStore implements GatewayStore {
  /** Several gateway processes share the database. */
  readonly sharedAcrossProcesses = true;
  readonly #pool: Pool;
  readonly #options: PostgresStoreOptions;
  /** This process's liveness key: held as a session advisory lock for its whole life. */
  readonly #holder: number;
  #liveness: PgClient | undefined;
  #closed = false;
  #health: { readonly at: number; readonly result: Promise<void> } | undefined;
  readonly providerCalls: ProviderCallStore;

  private constructor({
    pool,
    options,
    holder,
    liveness,
  }: {
    pool: Pool;
    options: PostgresStoreOptions;
    holder: number;
    liveness: PgClient;
  }) {
    this.#pool = pool;
    this.#options = options;
    this.#holder = holder;
    this.providerCalls = new PostgresProviderCalls(pool);
    this.#attachLiveness(liveness);
  }

  /**
   * Connects, applies the migrations this database lacks (under an advisory lock: processes
   * starting together apply each one once) and takes this process's liveness lock. Refuses a
   * database whose schema is newer than this gateway (`StoreError` `migration`) and an
   * unreachable one (`unavailable`, the URL's password never in the message).
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const pool = new Pool(poolConfig(options, options.poolSize ?? 10));
    pool.on("error", (error) =>
      options.logger?.error(
        { err: redactURL(error.message, options.url) },
        "PostgreSQL: an idle pooled connection failed",
      ),
    );
    try {
      await migrate(pool, options.url);
      const { holder, client } = await takeLivenessLock(options);
      return new PostgresStore({ pool, options, holder, liveness: client });
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  /** The schema version of the database. */
  async schemaVersion(): Promise<number> {
    const result = await this.#pool.query<{ version: number | null }>(
      "SELECT MAX(version) AS version FROM schema_migrations",
    );
    return result.rows[0]?.version ?? 0;
  }

  /** This process's liveness key (the `holder` of the run leases it takes). */
  get holder(): number {
    return this.#holder;
  }

  /**
   * The liveness session: if it drops (a database restart, a network cut) the leases of this
   * process look dead to the others until it is back, so it reconnects with the same key.
   */
  #attachLiveness(client: PgClient): void {
    this.#liveness = client;
    client.on("error", (error) => {
      this.#options.logger?.error(
        { err: redactURL(error.message, this.#options.url) },
        "PostgreSQL: the liveness session failed; reconnecting",
      );
    });
    client.on("end", () => {
      if (this.#closed) return;
      this.#liveness = undefined;
      void this.#reconnectLiveness();
    });
  }

  async #reconnectLiveness(): Promise<void> {
    for (let attempt = 0; !this.#closed; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt)));
      if (this.#closed) return;
      try {
        const { client } = await takeLivenessLock(this.#options, this.#holder);
        if (this.#closed) {
          await client.end();
          return;
        }
        this.#attachLiveness(client);
        return;
      } catch (error) {
        this.#options.logger?.error(
          { err: redactURL(String(error), this.#options.url), attempt },
          "PostgreSQL: the liveness session could not be restored yet",
        );
      }
    }
  }

  async load(tenant: string, conversationId: string): Promise<StoredConversation | undefined> {
    // One snapshot: the head row, its messages (small blobs' bytes with them, a large blob's
    // chunks one query each) and its turns as of the same commit.
    return this.#transaction(
      async (client) => {
        const head = await headRow(client, tenant, conversationId);
        if (head === undefined) return undefined;
        const rows = await messageRows(client, { tenant, conversationId, row: head });
        const messages: CanonicalMessage[] = [];
        let sinceTurn = 0;
        for (const messageRow of rows) {
          const bytes =
            messageRow.bytes ??
            Buffer.concat(await blobPieces(client, messageRow, { verify: false }));
          // One hash per message (in the decode): its bytes against its content address.
          messages.push(decodeMessage({ ...messageRow, bytes }));
          sinceTurn += bytes.byteLength;
          if (sinceTurn >= blobChunkBytes) {
            sinceTurn = 0;
            await nextTurn();
          }
        }
        const turns = await client.query<{ record: string }>({
          name: "cgw-load-turns",
          text: "SELECT record FROM turns WHERE tenant = $1 AND conversation_id = $2 ORDER BY seq",
          values: [tenant, conversationId],
        });
        return storedConversation({
          tenant,
          conversationId,
          row: head,
          messages,
          turns: turns.rows.map((r) => JSON.parse(r.record) as JsonValue),
        });
      },
      { readOnly: true },
    );
  }

  async readHistory(
    tenant: string,
    conversationId: string,
  ): Promise<StoredHistoryBytes | undefined> {
    // The head and its message rows in one snapshot; blobs never change once written (a repair
    // rewrites the same bytes), so their chunks are read afterwards, each on its own.
    const snapshot = await this.#transaction(
      async (client) => {
        const head = await headRow(client, tenant, conversationId);
        return head === undefined
          ? undefined
          : { head, rows: await messageRows(client, { tenant, conversationId, row: head }) };
      },
      { readOnly: true },
    );
    if (snapshot === undefined) return undefined;
    const pool = this.#pool;
    return {
      epoch: snapshot.head.epoch,
      headDigest: snapshot.head.head_digest,
      messageCount: snapshot.head.message_count,
      messages: (async function* () {
        for (const messageRow of snapshot.rows) {
          yield await blobPieces(pool, messageRow, { verify: true });
        }
      })(),
    };
  }

  async headVersion(tenant: string, conversationId: string): Promise<HeadVersion | undefined> {
    const result = await this.#pool.query<{
      epoch: number;
      head_digest: string;
      message_count: number;
    }>({
      name: "cgw-head-version",
      text: "SELECT epoch, head_digest, message_count FROM conversations WHERE tenant = $1 AND conversation_id = $2",
      values: [tenant, conversationId],
    });
    const row = result.rows[0];
    return row === undefined
      ? undefined
      : { epoch: row.epoch, headDigest: row.head_digest, messageCount: row.message_count };
  }

  async appendMessages(input: AppendMessagesInput): Promise<void> {
    const firstSeq = input.expected?.messageCount ?? 0;
    checkWrite(input, {
      epochMatches: input.expected === null || input.next.epoch === input.expected.epoch,
      firstSeq,
    });
    await this.#transaction(async (client) => {
      await this.#moveHead(client, input);
      await insertMessages(client, input, firstSeq);
      if (input.turns !== undefined && input.turns.length > 0) {
        await upsertTurns(client, input, input.turns);
      }
    });
  }

  async startEpoch(input: StartEpochInput): Promise<void> {
    checkWrite(input, {
      // Any later epoch: a compaction's next one, or a verified client checkpoint's.
      epochMatches: input.expected === null || input.next.epoch > input.expected.epoch,
      firstSeq: 0,
    });
    await this.#transaction(async (client) => {
      await this.#moveHead(client, input);
      await insertMessages(client, input, 0);
      if (input.turns !== undefined && input.turns.length > 0) {
        await upsertTurns(client, input, input.turns);
      }
    });
  }

  /**
   * The optimistic-concurrency guard and the head move in one statement: the row is updated
   * only while it holds the expected head (and no other process holds the run lease); zero
   * rows means the head moved, and the transaction writes nothing. Creating takes the row only
   * when nobody has it. The row lock taken here orders concurrent writers of a conversation.
   */
  async #moveHead(client: PoolClient, input: AppendMessagesInput | StartEpochInput) {
    const promptSpecInput =
      input.promptSpecInput === undefined ? null : JSON.stringify(input.promptSpecInput);
    const moved =
      input.expected === null
        ? await client.query({
            name: "cgw-create-head",
            text: `INSERT INTO conversations (tenant, conversation_id, epoch, message_count, head_digest,
                     last_run_id, prompt_spec_input)
                   SELECT $1, $2, $3, $4, $5, $6, $7 WHERE ${noOtherHolder(8)}
                   ON CONFLICT (tenant, conversation_id) DO NOTHING`,
            values: [
              input.tenant,
              input.conversationId,
              input.next.epoch,
              input.next.messageCount,
              input.next.headDigest,
              input.lastRunId ?? null,
              promptSpecInput,
              this.#holder,
            ],
          })
        : await client.query({
            name: "cgw-move-head",
            text: `UPDATE conversations SET epoch = $3, message_count = $4, head_digest = $5,
                     updated_at = now(), last_run_id = COALESCE($6, last_run_id),
                     prompt_spec_input = COALESCE($7, prompt_spec_input)
                   WHERE tenant = $1 AND conversation_id = $2 AND epoch = $8 AND head_digest = $9
                     AND ${noOtherHolder(10)}`,
            values: [
              input.tenant,
              input.conversationId,
              input.next.epoch,
              input.next.messageCount,
              input.next.headDigest,
              input.lastRunId ?? null,
              promptSpecInput,
              input.expected.epoch,
              input.expected.headDigest,
              this.#holder,
            ],
          });
    if (moved.rowCount !== 1) throw headMoved(input.conversationId);
  }

  async recordRun(input: RecordRunInput): Promise<void> {
    if (input.expected === null) {
      // The conversation is not stored (its first model call failed, or it only replayed a
      // hydrated head): the run's row only, so a retry finds how it ended.
      await saveRun(this.#pool, input);
      return;
    }
    const expected = input.expected;
    await this.#transaction(async (client) => {
      const usage = input.usage;
      const updated = await client.query({
        name: "cgw-record-run",
        text: `UPDATE conversations SET updated_at = now(),
                 last_run_id = COALESCE($3, last_run_id),
                 input_tokens = COALESCE($4, input_tokens),
                 cached_input_tokens = COALESCE($5, cached_input_tokens),
                 cache_write_tokens = COALESCE($6, cache_write_tokens),
                 output_tokens = COALESCE($7, output_tokens),
                 last_input_tokens = COALESCE($8, last_input_tokens),
                 last_input_message_count = COALESCE($9, last_input_message_count)
               WHERE tenant = $1 AND conversation_id = $2 AND epoch = $10 AND head_digest = $11
                 AND ${noOtherHolder(12)}`,
        values: [
          input.tenant,
          input.conversationId,
          input.lastRunId ?? null,
          usage?.inputTokens ?? null,
          usage?.cachedInputTokens ?? null,
          usage?.cacheWriteTokens ?? null,
          usage?.outputTokens ?? null,
          input.lastInput?.inputTokens ?? null,
          input.lastInput?.messageCount ?? null,
          expected.epoch,
          expected.headDigest,
          this.#holder,
        ],
      });
      if (updated.rowCount !== 1) throw headMoved(input.conversationId);
      await saveRun(client, input);
    });
  }

  async getRun({
    tenant,
    conversationId,
    runId,
  }: {
    tenant: string;
    conversationId: string;
    runId: string;
  }): Promise<StoredRun | undefined> {
    const result = await this.#pool.query<RunRow>({
      name: "cgw-get-run",
      text: "SELECT run_id, status, error, final_text FROM runs WHERE tenant = $1 AND conversation_id = $2 AND run_id = $3",
      values: [tenant, conversationId, runId],
    });
    const row = result.rows[0];
    if (row === undefined) return undefined;
    return {
      runId: row.run_id,
      status: row.status,
      ...(row.error === null
        ? {}
        : { error: JSON.parse(row.error) as StoredRun["error"] & object }),
      ...(row.final_text === null ? {} : { finalText: row.final_text }),
    };
  }

  /**
   * Takes the conversation's run slot for `leaseMs` (database clock: the processes' clocks may
   * differ). A held slot is taken over only when its lease lapsed or its holder's liveness
   * session is gone (the process died: its connections closed).
   */
  async acquireRun({
    tenant,
    conversationId,
    runId,
    leaseMs,
  }: {
    tenant: string;
    conversationId: string;
    runId: string;
    leaseMs: number;
  }): Promise<boolean> {
    const result = await this.#pool.query({
      name: "cgw-acquire-run",
      text: `INSERT INTO run_locks (tenant, conversation_id, run_id, holder, lease_until)
             VALUES ($1, $2, $3, $4, clock_timestamp() + $5 * interval '1 millisecond')
             ON CONFLICT (tenant, conversation_id) DO UPDATE SET run_id = excluded.run_id,
               holder = excluded.holder, lease_until = excluded.lease_until
             WHERE run_locks.lease_until < clock_timestamp()
               OR NOT EXISTS (
                 SELECT 1 FROM pg_locks
                 WHERE locktype = 'advisory' AND granted AND objsubid = 2
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND classid = $6::oid AND objid = run_locks.holder::oid
               )`,
      values: [tenant, conversationId, runId, this.#holder, leaseMs, advisoryNamespace],
    });
    return result.rowCount === 1;
  }

  /** Extends a lease this process holds; false when it was lost (taken over by another). */
  async renewRun({
    tenant,
    conversationId,
    runId,
    leaseMs,
  }: {
    tenant: string;
    conversationId: string;
    runId: string;
    leaseMs: number;
  }): Promise<boolean> {
    const result = await this.#pool.query({
      name: "cgw-renew-run",
      text: `UPDATE run_locks SET lease_until = clock_timestamp() + $5 * interval '1 millisecond'
             WHERE tenant = $1 AND conversation_id = $2 AND run_id = $3 AND holder = $4`,
      values: [tenant, conversationId, runId, this.#holder, leaseMs],
    });
    return result.rowCount === 1;
  }

  async releaseRun({
    tenant,
    conversationId,
    runId,
  }: {
    tenant: string;
    conversationId: string;
    runId: string;
  }): Promise<void> {
    // Only this process's own lease: the same run id retried on another process is not ours.
    await this.#pool.query({
      name: "cgw-release-run",
      text: "DELETE FROM run_locks WHERE tenant = $1 AND conversation_id = $2 AND run_id = $3 AND holder = $4",
      values: [tenant, conversationId, runId, this.#holder],
    });
  }

  async repairBlobs({
    messages,
    digests,
  }: {
    messages: readonly CanonicalMessage[];
    digests: readonly string[];
  }): Promise<number> {
    if (messages.length !== digests.length) {
      throw new StoreError({
        reason: "invalid-write",
        message: "every repaired message needs its digest",
      });
    }
    let repaired = 0;
    for (const [index, message] of messages.entries()) {
      const digest = digests[index]!;
      const bytes = Buffer.from(recentCanonicalJson(message), "utf8");
      if (createHash("sha256").update(bytes).digest("hex") !== digest) {
        throw new StoreError({
          reason: "invalid-write",
          message: `message ${message.id} does not hash to ${digest}: not a verified copy`,
        });
      }
      const found = await this.#pool.query<{
        size: number;
        chunk_count: number;
        bytes: Buffer | null;
      }>({
        name: "cgw-blob-row",
        text: "SELECT size, chunk_count, bytes FROM blobs WHERE id = $1",
        values: [digest],
      });
      const row = found.rows[0];
      const stored =
        row === undefined
          ? undefined
          : await blobPieces(
              this.#pool,
              { message_id: message.id, blob_id: digest, ...row },
              { verify: false },
            ).catch(() => undefined);
      if (stored !== undefined && Buffer.concat(stored).equals(bytes)) continue;
      await this.#transaction((client) => writeBlob(client, { id: digest, bytes, replace: true }));
      repaired += 1;
    }
    return repaired;
  }

  async checkHealth(): Promise<void> {
    // Probes are coalesced for a second: an unauthenticated /healthz cannot make the database
    // work more than that.
    const now = Date.now();
    if (this.#health === undefined || now - this.#health.at >= 1_000) {
      this.#health = { at: now, result: this.#probe() };
    }
    return this.#health.result;
  }

  async #probe(): Promise<void> {
    try {
      await this.#transaction(async (client) => {
        // A database that hangs is one that cannot serve.
        await client.query("SET LOCAL statement_timeout = 5000");
        // The tables every request reads, and a committed write (a read-only database, a full
        // disk, a revoked grant shows here).
        await client.query(healthReadSql);
        await client.query(
          "UPDATE schema_migrations SET applied_at = applied_at WHERE version = (SELECT MAX(version) FROM schema_migrations)",
        );
      });
    } catch (error) {
      throw new StoreError({
        reason: "unavailable",
        message: `the PostgreSQL database at ${databaseLabel(this.#options.url)} cannot serve: ${redactURL(error instanceof Error ? error.message : String(error), this.#options.url)}`,
        cause: error,
      });
    }
  }

  async acknowledgedClientBlobs({
    tenant,
    conversationId,
    blobIds,
  }: ClientBlobsInput): Promise<ReadonlySet<string>> {
    if (blobIds.length === 0) return new Set();
    const result = await this.#pool.query<{ blob_id: string }>({
      name: "cgw-client-blobs",
      text: `SELECT blob_id FROM client_blobs
             WHERE tenant = $1 AND conversation_id = $2 AND blob_id = ANY($3::text[])`,
      values: [tenant, conversationId, [...blobIds]],
    });
    return new Set(result.rows.map((row) => row.blob_id));
  }

  async recordClientBlobs({ tenant, conversationId, blobIds }: ClientBlobsInput): Promise<void> {
    if (blobIds.length === 0) return;
    // Sorted and distinct: concurrent writers take the row locks in one order (no deadlock).
    const ids = [...new Set(blobIds)].sort();
    await this.#pool.query({
      name: "cgw-record-client-blobs",
      text: `INSERT INTO client_blobs (tenant, conversation_id, blob_id)
             SELECT $1, $2, id FROM unnest($3::text[]) AS id ORDER BY id
             ON CONFLICT DO NOTHING`,
      values: [tenant, conversationId, ids],
    });
  }

  /** Ends the liveness session (this process's leases lapse at once) and the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const liveness = this.#liveness;
    this.#liveness = undefined;
    await liveness?.end().catch(() => undefined);
    await this.#pool.end();
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED for writes: each guard sees the latest
   * commit; REPEATABLE READ for a read-only snapshot), again when the server aborted it as a
   * deadlock victim or serialization failure.
   */
  async #transaction<T>(
    work: (client: PoolClient) => Promise<T>,
    { readOnly = false }: { readOnly?: boolean } = {},
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await this.#pool.connect();
      let broken = false;
      try {
        await client.query(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        if (
          attempt < maxTransactionAttempts &&
          error instanceof DatabaseError &&
          error.code !== undefined &&
          retryableCodes.has(error.code)
        ) {
          continue;
        }
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }
}

/** int8 columns (token totals) as numbers: they stay far below 2^53. */
const typeParsers = new TypeOverrides();
typeParsers.setTypeParser(20, (value: string) => Number(value));

function poolConfig(options: PostgresStoreOptions, max: number): PoolConfig {
  return {
    connectionString: options.url,
    max,
    application_name: "cursor-gateway",
    connectionTimeoutMillis: 10_000,
    idle_in_transaction_session_timeout: options.idleTransactionTimeoutMs ?? 30_000,
    types: typeParsers,
  };
}

/** Applies the missing migrations, one transaction each, holding the migration advisory lock. */
async function migrate(pool: Pool, url: string): Promise<void> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw new StoreError({
      reason: "unavailable",
      message: `cannot connect to PostgreSQL at ${databaseLabel(url)}: ${redactURL(error instanceof Error ? error.message : String(error), url)}`,
    });
  }
  try {
    await client.query("SELECT pg_advisory_lock($1, $2)", [advisoryNamespace, migrationLockKey]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           description text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const applied = new Set(
        (await client.query<{ version: number }>("SELECT version FROM schema_migrations")).rows.map(
          (row) => row.version,
        ),
      );
      const known = Math.max(...postgresMigrations.map((m) => m.version));
      const newest = Math.max(0, ...applied);
      if (newest > known) {
        throw new StoreError({
          reason: "migration",
          message: `the database at ${databaseLabel(url)} has schema version ${newest}, newer than this gateway knows (${known}); upgrade the gateway (every process of a deployment runs the same version)`,
        });
      }
      for (const migration of postgresMigrations) {
        if (applied.has(migration.version)) continue;
        await client.query("BEGIN");
        try {
          await client.query(migration.sql);
          await client.query(
            "INSERT INTO schema_migrations (version, description) VALUES ($1, $2)",
            [migration.version, migration.description],
          );
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw new StoreError({
            reason: "migration",
            message: `migration ${migration.version} (${migration.description}) failed: ${redactURL(error instanceof Error ? error.message : String(error), url)}`,
            cause: error,
          });
        }
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, $2)", [
        advisoryNamespace,
        migrationLockKey,
      ]);
    }
  } finally {
    client.release();
  }
}

/**
 * A dedicated session holding the advisory lock (namespace, holder) for the life of the
 * process: other processes see the lock disappear the moment the session ends (the process
 * exited or was killed; the server closes its connections), and may take over its leases.
 */
async function takeLivenessLock(
  options: PostgresStoreOptions,
  holder?: number,
): Promise<{ holder: number; client: PgClient }> {
  const client = new PgClient({
    ...poolConfig(options, 1),
    application_name: "cursor-gateway liveness",
  });
  try {
    await client.connect();
  } catch (error) {
    throw new StoreError({
      reason: "unavailable",
      message: `cannot connect to PostgreSQL at ${databaseLabel(options.url)}: ${redactURL(error instanceof Error ? error.message : String(error), options.url)}`,
    });
  }
  for (let attempt = 0; attempt < 16; attempt += 1) {
    const key = holder ?? randomInt(1, 2 ** 31 - 1);
    const result = await client.query<{ locked: boolean }>(
      "SELECT pg_try_advisory_lock($1, $2) AS locked",
      [advisoryNamespace, key],
    );
    if (result.rows[0]?.locked === true) return { holder: key, client };
    if (holder !== undefined) break;
  }
  await client.end();
  throw new StoreError({
    reason: "unavailable",
    message: "could not take a liveness lock for this gateway process",
  });
}

/** Refuses a write that cannot be right before a transaction opens. */
function checkWrite(
  input: AppendMessagesInput | StartEpochInput,
  { epochMatches, firstSeq }: { epochMatches: boolean; firstSeq: number },
): void {
  const problem =
    input.messages.length !== input.digests.length
      ? "every written message needs its digest"
      : !epochMatches
        ? `epoch ${input.next.epoch} does not follow the expected head's epoch ${input.expected?.epoch}`
        : input.next.messageCount !== firstSeq + input.messages.length
          ? `the next head counts ${input.next.messageCount} messages, the write makes ${firstSeq + input.messages.length}`
          : undefined;
  if (problem !== undefined) {
    throw new StoreError({
      reason: "invalid-write",
      message: `conversation ${input.conversationId}: ${problem}`,
    });
  }
}

function headMoved(conversationId: string): StoreError {
  return new StoreError({
    reason: "head-moved",
    message: `conversation ${conversationId} changed since this turn started`,
  });
}

async function insertMessages(
  client: PoolClient,
  input: AppendMessagesInput | StartEpochInput,
  firstSeq: number,
): Promise<void> {
  if (input.messages.length === 0) return;
  // Blobs first, distinct and sorted by id: concurrent writers of different conversations that
  // share a blob take its row lock in the same order (no deadlock).
  const blobs = new Map<string, Buffer>();
  input.messages.forEach((message, offset) => {
    const digest = input.digests[offset]!;
    // Canonical JSON, so the bytes hash to the message digest (its content address).
    if (!blobs.has(digest)) blobs.set(digest, Buffer.from(recentCanonicalJson(message), "utf8"));
  });
  const sorted = [...blobs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const small = sorted.filter(([, bytes]) => bytes.byteLength <= blobChunkBytes);
  for (let start = 0; start < small.length; start += rowsPerStatement) {
    const rows = small.slice(start, start + rowsPerStatement);
    // Each blob a parameter of its own: the bytes travel in binary, not as array text.
    await client.query(
      `INSERT INTO blobs (id, size, chunk_count, bytes)
       VALUES ${rows.map((_, i) => `($${3 * i + 1}, $${3 * i + 2}, 0, $${3 * i + 3})`).join(", ")}
       ON CONFLICT (id) DO NOTHING`,
      rows.flatMap(([id, bytes]) => [id, bytes.byteLength, bytes]),
    );
  }
  for (const [id, bytes] of sorted) {
    if (bytes.byteLength > blobChunkBytes) await writeBlob(client, { id, bytes, replace: false });
  }
  await client.query({
    name: "cgw-insert-messages",
    text: `INSERT INTO messages (tenant, conversation_id, epoch, seq, message_id, blob_id)
           SELECT $1, $2, $3, $4 + m.ord - 1, m.message_id, m.blob_id
           FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS m(message_id, blob_id, ord)`,
    values: [
      input.tenant,
      input.conversationId,
      input.next.epoch,
      firstSeq,
      input.messages.map((message) => message.id),
      [...input.digests],
    ],
  });
}

/**
 * Writes a blob's row, and its chunks when it is over `blobChunkBytes`. Without `replace`, a
 * blob that exists is left alone (it is content-addressed: another writer stored the same
 * bytes; a concurrent writer of the same blob waits on its row here, then writes nothing).
 */
async function writeBlob(
  client: PoolClient,
  { id, bytes, replace }: { id: string; bytes: Buffer; replace: boolean },
): Promise<void> {
  const chunkCount =
    bytes.byteLength <= blobChunkBytes ? 0 : Math.ceil(bytes.byteLength / blobChunkBytes);
  const written = await client.query({
    name: replace ? "cgw-replace-blob" : "cgw-insert-blob",
    text: `INSERT INTO blobs (id, size, chunk_count, bytes) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) ${replace ? "DO UPDATE SET size = excluded.size, chunk_count = excluded.chunk_count, bytes = excluded.bytes" : "DO NOTHING"}`,
    values: [id, bytes.byteLength, chunkCount, chunkCount === 0 ? bytes : null],
  });
  if (written.rowCount !== 1) return;
  if (replace) {
    await client.query({
      name: "cgw-delete-blob-chunks",
      text: "DELETE FROM blob_chunks WHERE blob_id = $1",
      values: [id],
    });
  }
  for (let seq = 0; seq < chunkCount; seq += 1) {
    await client.query({
      name: "cgw-insert-blob-chunk",
      text: "INSERT INTO blob_chunks (blob_id, seq, bytes) VALUES ($1, $2, $3)",
      values: [id, seq, bytes.subarray(seq * blobChunkBytes, (seq + 1) * blobChunkBytes)],
    });
  }
}

async function headRow(
  client: Pick<PoolClient, "query">,
  tenant: string,
  conversationId: string,
): Promise<ConversationRow | undefined> {
  const head = await client.query<ConversationRow>({
    name: "cgw-load-head",
    text: `SELECT ${conversationColumns} FROM conversations WHERE tenant = $1 AND conversation_id = $2`,
    values: [tenant, conversationId],
  });
  return head.rows[0];
}

/**
 * The current epoch's message rows in order (small blobs' bytes with them), checked against the
 * head's message count.
 */
async function messageRows(
  client: Pick<PoolClient, "query">,
  { tenant, conversationId, row }: { tenant: string; conversationId: string; row: ConversationRow },
): Promise<MessageBlobRow[]> {
  const stored = await client.query<MessageBlobRow>({
    name: "cgw-load-messages",
    text: `SELECT m.message_id, m.blob_id, b.size, b.chunk_count,
                  CASE WHEN b.chunk_count = 0 THEN b.bytes END AS bytes
           FROM messages m LEFT JOIN blobs b ON b.id = m.blob_id
           WHERE m.tenant = $1 AND m.conversation_id = $2 AND m.epoch = $3 ORDER BY m.seq`,
    values: [tenant, conversationId, row.epoch],
  });
  if (stored.rows.length !== row.message_count) {
    throw new StoreError({
      reason: "corrupt",
      message: `conversation ${conversationId}: ${stored.rows.length} messages stored, head says ${row.message_count}`,
    });
  }
  return stored.rows;
}

/**
 * A blob's bytes in pieces of at most `blobChunkBytes` (a chunked blob one query per piece, so no
 * result the driver parses on the event loop is large); with `verify`, checked against its
 * content address (and size) as read.
 */
async function blobPieces(
  client: Pick<PoolClient, "query">,
  row: MessageBlobRow,
  { verify }: { verify: boolean },
): Promise<Buffer[]> {
  const corrupt = (why: string) =>
    new StoreError({
      reason: "corrupt",
      message: `blob ${row.blob_id} (message ${row.message_id}) ${why}`,
    });
  if (row.size === null || row.chunk_count === null) throw corrupt("is missing");
  const pieces: Buffer[] = [];
  const hash = verify ? createHash("sha256") : undefined;
  let size = 0;
  const take = (piece: Buffer) => {
    hash?.update(piece);
    size += piece.byteLength;
    pieces.push(piece);
  };
  if (row.chunk_count === 0) {
    const stored =
      row.bytes ??
      (
        await client.query<{ bytes: Buffer | null }>({
          name: "cgw-blob-bytes",
          text: "SELECT bytes FROM blobs WHERE id = $1",
          values: [row.blob_id],
        })
      ).rows[0]?.bytes;
    if (stored === null || stored === undefined) throw corrupt("has no bytes");
    take(stored);
  } else {
    for (let seq = 0; seq < row.chunk_count; seq += 1) {
      const chunk = await client.query<{ bytes: Buffer }>({
        name: "cgw-blob-chunk",
        text: "SELECT bytes FROM blob_chunks WHERE blob_id = $1 AND seq = $2",
        values: [row.blob_id, seq],
      });
      const bytes = chunk.rows[0]?.bytes;
      if (bytes === undefined) throw corrupt(`lacks chunk ${seq} of ${row.chunk_count}`);
      take(bytes);
      await nextTurn();
    }
  }
  if (hash !== undefined && (size !== row.size || hash.digest("hex") !== row.blob_id)) {
    throw corrupt("does not match its content address");
  }
  return pieces;
}

/** Reads one row's worth of every table the gateway serves from. */
const healthReadSql = `SELECT
  (SELECT COUNT(*) FROM (SELECT 1 FROM conversations LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM messages LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM blobs LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM blob_chunks LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM turns LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM runs LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM run_locks LIMIT 1) AS t) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM client_blobs LIMIT 1) AS t) AS rows`;

/**
 * Adds turn records after the conversation's last, or rewrites one in place by event id (a
 * retry's record). Within one write, an event id given twice keeps its first position and its
 * last record (as a row-by-row upsert does).
 */
async function upsertTurns(
  client: PoolClient,
  input: { tenant: string; conversationId: string },
  turns: readonly StoredTurn[],
): Promise<void> {
  const byEvent = new Map<string, string>();
  for (const turn of turns) byEvent.set(turn.eventId, JSON.stringify(turn.record));
  await client.query({
    name: "cgw-upsert-turns",
    text: `INSERT INTO turns (tenant, conversation_id, seq, event_id, record)
           SELECT $1, $2,
             (SELECT COALESCE(MAX(seq) + 1, 0) FROM turns WHERE tenant = $1 AND conversation_id = $2)
               + t.ord - 1,
             t.event_id, t.record
           FROM unnest($3::text[], $4::text[]) WITH ORDINALITY AS t(event_id, record, ord)
           ON CONFLICT (tenant, conversation_id, event_id) DO UPDATE SET record = excluded.record`,
    values: [input.tenant, input.conversationId, [...byEvent.keys()], [...byEvent.values()]],
  });
}

async function saveRun(
  queryable: Pick<PoolClient, "query">,
  { tenant, conversationId, run }: { tenant: string; conversationId: string; run: StoredRun },
): Promise<void> {
  await queryable.query({
    name: "cgw-save-run",
    text: `INSERT INTO runs (tenant, conversation_id, run_id, status, error, final_text, started_at, ended_at)
           VALUES ($1, $2, $3, $4::text, $5, $6, now(), CASE WHEN $4::text = 'running' THEN NULL ELSE now() END)
           ON CONFLICT (tenant, conversation_id, run_id) DO UPDATE SET
             status = excluded.status, error = excluded.error, final_text = excluded.final_text,
             ended_at = excluded.ended_at`,
    values: [
      tenant,
      conversationId,
      run.runId,
      run.status,
      run.error === undefined ? null : JSON.stringify(run.error),
      run.finalText ?? null,
    ],
  });
}

function decodeMessage(row: {
  message_id: string;
  blob_id: string;
  bytes: Buffer;
}): CanonicalMessage {
  let message: CanonicalMessage;
  try {
    // One hash per message: its bytes against its content address. The decoded message carries
    // that digest into the HistoryLog built from it.
    message = decodeCanonicalMessage({ bytes: row.bytes, digest: row.blob_id });
  } catch (error) {
    if (!InvalidHistoryError.isInstance(error)) throw error;
    throw new StoreError({ reason: "corrupt", message: error.message, cause: error });
  }
  if (message.id !== row.message_id) {
    throw new StoreError({
      reason: "corrupt",
      message: `message ${row.message_id} is not a valid canonical message`,
    });
  }
  return message;
}

/** A driver message with the URL's password (if any) blanked out, just in case. */
function redactURL(message: string, url: string): string {
  const password = databasePassword(url);
  return password === "" ? message : message.split(password).join("[redacted]");
}
