import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import Database from "better-sqlite3";
import { InvalidHistoryError, decodeCanonicalMessage, recentCanonicalJson } from "@cursor/run";
import type { CanonicalMessage, JsonValue } from "@cursor/run";
import { conversationColumns, storedConversation } from "./conversation-rows.js";
import type { ConversationRow } from "./conversation-rows.js";
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
import { blobChunkBytes, migrations } from "./migrations.js";
import type { ProviderCallStore } from "./provider-call-store.js";
import { SqliteProviderCalls } from "./sqlite-provider-calls.js";
import { StoreError } from "./store-error.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import type { SqliteOwnerLock } from "./sqlite-owner-lock.js";

interface RunRow {
  run_id: string;
  status: StoredRun["status"];
  error: string | null;
  final_text: string | null;
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

/** Work done on the event loop between two yields while reading or decoding large content. */
const bytesPerTurn = blobChunkBytes;

/**
 * A database file that SQLite cannot read (not a database, or damaged) as a `corrupt`
 * StoreError naming the file; other errors as they are.
 */
function unusableDatabase(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") {
    return new StoreError({
      reason: "corrupt",
      message: `${path} is not a SQLite database or is damaged (${code}); move it away (the gateway then creates a new one) or set CURSOR_GATEWAY_DATA_DIR to another folder`,
      cause: error,
    });
  }
  return error;
}

/**
 * Refuses a SQLite file of another program: tables but no `schema_migrations` of this gateway's
 * shape, or migrations this gateway did not write. Creating the gateway's tables in it would
 * mix two programs' data.
 */
function refuseForeignDatabase(db: Database.Database, path: string): void {
  const tables = (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((row) => row.name);
  if (tables.length === 0) return;
  const foreign = (why: string) =>
    new StoreError({
      reason: "migration",
      message: `${path} is not a cursor-gateway database (${why}); the gateway does not write into another program's database: move it away or set CURSOR_GATEWAY_DATA_DIR to another folder`,
    });
  if (!tables.includes("schema_migrations")) {
    throw foreign(
      `it has the tables ${tables.slice(0, 5).join(", ")}${tables.length > 5 ? ", …" : ""} and no schema_migrations`,
    );
  }
  const columns = new Set(
    (db.prepare("PRAGMA table_info(schema_migrations)").all() as { name: string }[]).map(
      (column) => column.name,
    ),
  );
  if (!["version", "description", "applied_at"].every((column) => columns.has(column))) {
    throw foreign("its schema_migrations table is another program's");
  }
  const applied = db.prepare("SELECT version, description FROM schema_migrations").all() as {
    version: number;
    description: string;
  }[];
  for (const row of applied) {
    const ours = migrations.find((migration) => migration.version === row.version);
    if (ours !== undefined && ours.description !== row.description) {
      throw foreign(`its migration ${row.version} is "${row.description}"`);
    }
  }
}

/** The embedded default store: one SQLite file in WAL mode, migrations applied on open. */
export class SqliteStore implements GatewayStore {
  /** One gateway process owns the file (run locks left behind are cleared on start). */
  readonly sharedAcrossProcesses = false;
  readonly #db: Database.Database;
  readonly #now: () => number;
  readonly #statements!: ReturnType<typeof prepareStatements>;
  /**
   * Runs `work` in one transaction. Made once: better-sqlite3 builds a wrapper for every
   * `db.transaction(fn)`, which costs about as much as the small writes of a turn.
   */
  readonly #transaction!: <T>(work: () => T) => T;
  readonly #path: string;
  #health: { readonly at: number; readonly result: Promise<void> } | undefined;
  readonly providerCalls!: ProviderCallStore;
  /** Checkpoints the WAL on a thread of its own (a file database only). */
  readonly #checkpointer: WalCheckpointer | undefined;

  /** Held while the store is open (`openGatewayStore`'s owner lock), released by `close`. */
  readonly #ownerLock: SqliteOwnerLock | undefined;

  constructor({
    path,
    now = Date.now,
    ownerLock,
  }: {
    path: string;
    now?: () => number;
    /** A lock the store releases when it closes (the caller took it before opening the file). */
    ownerLock?: SqliteOwnerLock;
  }) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.#path = path;
    this.#ownerLock = ownerLock;
    this.#db = new Database(path);
    this.#now = now;
    try {
      this.#db.pragma("journal_mode = WAL");
      this.#db.pragma("synchronous = NORMAL");
      this.#db.pragma("foreign_keys = ON");
      this.#db.pragma("busy_timeout = 5000");
      // Up to 64 MiB of pages kept by SQLite itself (the default is 2 MiB): the rows and blobs
      // of the conversations being served stay in memory instead of being read again with a
      // system call each (bench, 200 turns × 16 at once: the head row read was 0.4 ms a call).
      this.#db.pragma("cache_size = -65536");
      refuseForeignDatabase(this.#db, path);
      this.#migrate();
      this.#statements = prepareStatements(this.#db);
      if (path !== ":memory:") {
        this.#db.pragma("wal_autocheckpoint = 0");
        this.#checkpointer = new WalCheckpointer({
          path,
          fallBack: () => {
            if (this.#db.open) this.#db.pragma("wal_autocheckpoint = 1000");
          },
        });
      }
      const transaction = this.#db.transaction((work: () => unknown) => work());
      this.#transaction = <T>(work: () => T) => {
        const result = transaction(work) as T;
        this.#noteWrite();
        return result;
      };
      this.providerCalls = new SqliteProviderCalls(this.#db, () => this.#noteWrite());
    } catch (error) {
      this.#db.close();
      throw unusableDatabase(error, path);
    }
  }

  /** The schema version after migrations. */
  get schemaVersion(): number {
    const row = this.#db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as {
      version: number;
    };
    return row.version;
  }

  #migrate(): void {
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    const applied = new Set(
      (
        this.#db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]
      ).map((row) => row.version),
    );
    const known = Math.max(...migrations.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > known) {
      throw new StoreError({
        reason: "migration",
        message: `database schema version ${newest} is newer than this gateway knows (${known}); upgrade the gateway`,
      });
    }
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      // SQLite ignores this pragma inside a transaction: it is switched around it.
      if (migration.rebuildsReferencedTable) this.#db.pragma("foreign_keys = OFF");
      try {
        this.#db.transaction(() => {
          this.#db.exec(migration.sql);
          if (migration.rebuildsReferencedTable) {
            const broken = this.#db.pragma("foreign_key_check") as unknown[];
            if (broken.length > 0) {
              throw new StoreError({
                reason: "migration",
                message: `migration ${migration.version} left ${broken.length} broken references`,
              });
            }
          }
          this.#db
            .prepare(
              "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
            )
            .run(migration.version, migration.description, this.#now());
        })();
      } finally {
        if (migration.rebuildsReferencedTable) this.#db.pragma("foreign_keys = ON");
      }
    }
  }

  async load(tenant: string, conversationId: string): Promise<StoredConversation | undefined> {
    // The head, its message rows (with the bytes of small blobs) and its turns in one snapshot;
    // large blobs are read afterwards, piece by piece (blobs never change once written).
    const snapshot = this.#transaction(() => {
      const row = this.#conversationRow(tenant, conversationId);
      if (row === undefined) return undefined;
      const rows = this.#messageRows(tenant, conversationId, row);
      const turns = (
        this.#db
          .prepare("SELECT record FROM turns WHERE tenant = ? AND conversation_id = ? ORDER BY seq")
          .all(tenant, conversationId) as { record: string }[]
      ).map((r) => JSON.parse(r.record) as JsonValue);
      return { row, rows, turns };
    });
    if (snapshot === undefined) return undefined;
    const { row, rows, turns } = snapshot;
    const messages: CanonicalMessage[] = [];
    let sinceTurn = 0;
    for (const messageRow of rows) {
      const bytes =
        messageRow.bytes ?? Buffer.concat(await this.#blobPieces(messageRow, { verify: false }));
      // One hash per message (in the decode): its bytes against its content address.
      messages.push(this.#decodeMessage({ ...messageRow, bytes }));
      sinceTurn += bytes.byteLength;
      if (sinceTurn >= bytesPerTurn) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    return storedConversation({ tenant, conversationId, row, messages, turns });
  }

  async readHistory(
    tenant: string,
    conversationId: string,
  ): Promise<StoredHistoryBytes | undefined> {
    const snapshot = this.#transaction(() => {
      const row = this.#conversationRow(tenant, conversationId);
      return row === undefined
        ? undefined
        : { row, rows: this.#messageRows(tenant, conversationId, row, { withBytes: false }) };
    });
    if (snapshot === undefined) return undefined;
    const { row, rows } = snapshot;
    const pieces = (messageRow: MessageBlobRow) => this.#blobPieces(messageRow, { verify: true });
    return {
      epoch: row.epoch,
      headDigest: row.head_digest,
      messageCount: row.message_count,
      messages: (async function* () {
        for (const messageRow of rows) yield await pieces(messageRow);
      })(),
    };
  }

  /** The current epoch's message rows in order, checked against the head's message count. */
  #messageRows(
    tenant: string,
    conversationId: string,
    row: ConversationRow,
    { withBytes = true }: { withBytes?: boolean } = {},
  ): MessageBlobRow[] {
    const rows = (
      withBytes ? this.#statements.messageRowsWithBytes : this.#statements.messageRows
    ).all(tenant, conversationId, row.epoch) as MessageBlobRow[];
    if (rows.length !== row.message_count) {
      throw new StoreError({
        reason: "corrupt",
        message: `conversation ${conversationId}: ${rows.length} messages stored, head says ${row.message_count}`,
      });
    }
    return rows;
  }

  /**
   * A blob's bytes in pieces of at most `blobChunkBytes`, yielding to the event loop after each
   * piece of a chunked blob; with `verify`, checked against its content address (and size) first.
   */
  async #blobPieces(row: MessageBlobRow, { verify }: { verify: boolean }): Promise<Buffer[]> {
    const corrupt = (why: string) =>
      new StoreError({
        reason: "corrupt",
        message: `blob ${row.blob_id} (message ${row.message_id}) ${why}`,
      });
    if (row.size === null || row.chunk_count === null) throw corrupt("is missing");
    const pieces: Buffer[] = [];
    // Hashed piece by piece as read, so verifying a large blob never holds the event loop long.
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
        (this.#statements.blobBytes.get(row.blob_id) as { bytes: Buffer | null } | undefined)
          ?.bytes;
      if (stored === null || stored === undefined) throw corrupt("has no bytes");
      take(stored);
    } else {
      for (let seq = 0; seq < row.chunk_count; seq += 1) {
        const chunk = this.#statements.blobChunk.get(row.blob_id, seq) as
          { bytes: Buffer } | undefined;
        if (chunk === undefined) throw corrupt(`lacks chunk ${seq} of ${row.chunk_count}`);
        // Reading a piece and hashing it are two steps: other requests run between them.
        await nextTurn();
        take(chunk.bytes);
        await nextTurn();
      }
    }
    if (hash !== undefined && (size !== row.size || hash.digest("hex") !== row.blob_id)) {
      throw corrupt("does not match its content address");
    }
    return pieces;
  }

  #decodeMessage(row: { message_id: string; blob_id: string; bytes: Buffer }): CanonicalMessage {
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

  #conversationRow(tenant: string, conversationId: string): ConversationRow | undefined {
    return this.#statements.conversationRow.get(tenant, conversationId) as
      ConversationRow | undefined;
  }

  async headVersion(tenant: string, conversationId: string): Promise<HeadVersion | undefined> {
    const row = this.#conversationRow(tenant, conversationId);
    return row === undefined
      ? undefined
      : { epoch: row.epoch, headDigest: row.head_digest, messageCount: row.message_count };
  }

  async appendMessages(input: AppendMessagesInput): Promise<void> {
    const firstSeq = input.expected?.messageCount ?? 0;
    this.#checkWrite(input, {
      epochMatches: input.expected === null || input.next.epoch === input.expected.epoch,
      firstSeq,
    });
    this.#transaction(() => {
      const current = this.#guard(input);
      this.#insertMessages(input, firstSeq);
      this.#moveHead(input, current === undefined);
    });
  }

  async startEpoch(input: StartEpochInput): Promise<void> {
    this.#checkWrite(input, {
      epochMatches: input.expected === null || input.next.epoch > input.expected.epoch,
      firstSeq: 0,
    });
    this.#transaction(() => {
      const current = this.#guard(input);
      this.#insertMessages(input, 0);
      this.#moveHead(input, current === undefined);
    });
  }

  async recordRun(input: RecordRunInput): Promise<void> {
    const now = this.#now();
    if (input.expected === null) {
      // The conversation is not stored (its first model call failed, or it only replayed a
      // hydrated head): the run's row only, so a retry finds how it ended.
      this.#write(() => this.#saveRun(input, now));
      return;
    }
    const expected = input.expected;
    this.#transaction(() => {
      this.#guard({ ...input, expected });
      const usage = input.usage;
      this.#statements.recordRunMetadata.run(
        now,
        input.lastRunId ?? null,
        usage?.inputTokens ?? null,
        usage?.cachedInputTokens ?? null,
        usage?.cacheWriteTokens ?? null,
        usage?.outputTokens ?? null,
        input.lastInput?.inputTokens ?? null,
        input.lastInput?.messageCount ?? null,
        input.tenant,
        input.conversationId,
      );
      this.#saveRun(input, now);
    });
  }

  /** Refuses a write that cannot be right before a transaction opens. */
  #checkWrite(
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

  /** Optimistic concurrency: the store must hold exactly the head the writer started from. */
  #guard(input: {
    tenant: string;
    conversationId: string;
    expected: HeadVersion | null;
  }): ConversationRow | undefined {
    const current = this.#conversationRow(input.tenant, input.conversationId);
    const matches =
      input.expected === null
        ? current === undefined
        : current !== undefined &&
          current.epoch === input.expected.epoch &&
          current.head_digest === input.expected.headDigest;
    if (!matches) {
      throw new StoreError({
        reason: "head-moved",
        message: `conversation ${input.conversationId} changed since this turn started`,
      });
    }
    return current;
  }

  #insertMessages(input: AppendMessagesInput | StartEpochInput, firstSeq: number): void {
    input.messages.forEach((message, offset) => {
      // Canonical JSON, so the bytes hash to the message digest (its content address).
      const digest = input.digests[offset]!;
      if (this.#statements.blobExists.get(digest) === undefined) {
        this.#writeBlob(digest, Buffer.from(recentCanonicalJson(message), "utf8"));
      }
      this.#statements.insertMessage.run(
        input.tenant,
        input.conversationId,
        input.next.epoch,
        firstSeq + offset,
        message.id,
        digest,
      );
    });
  }

  /** Writes a blob's row (and its chunks when it is large), replacing what was there. */
  #writeBlob(digest: string, bytes: Buffer): void {
    this.#statements.deleteBlobChunks.run(digest);
    if (bytes.byteLength <= blobChunkBytes) {
      this.#statements.upsertBlob.run(digest, bytes.byteLength, 0, bytes);
      return;
    }
    const chunkCount = Math.ceil(bytes.byteLength / blobChunkBytes);
    this.#statements.upsertBlob.run(digest, bytes.byteLength, chunkCount, null);
    for (let seq = 0; seq < chunkCount; seq += 1) {
      this.#statements.insertBlobChunk.run(
        digest,
        seq,
        bytes.subarray(seq * blobChunkBytes, (seq + 1) * blobChunkBytes),
      );
    }
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
      const row = this.#statements.blobRow.get(digest) as
        { size: number; chunk_count: number; bytes: Buffer | null } | undefined;
      const stored =
        row === undefined
          ? undefined
          : await this.#blobPieces(
              { message_id: message.id, blob_id: digest, ...row },
              { verify: false },
            ).catch(() => undefined);
      if (stored !== undefined && Buffer.concat(stored).equals(bytes)) continue;
      this.#transaction(() => this.#writeBlob(digest, bytes));
      repaired += 1;
    }
    return repaired;
  }

  async checkHealth(): Promise<void> {
    // Probes are coalesced for a second: an unauthenticated /healthz cannot make the store work
    // more than that.
    const now = Date.now();
    if (this.#health === undefined || now - this.#health.at >= 1_000) {
      this.#health = { at: now, result: this.#probe() };
    }
    return this.#health.result;
  }

  async #probe(): Promise<void> {
    try {
      // The tables every request reads, through this connection's statements...
      this.#statements.healthRead.get();
      // ...a committed write (a read-only or full disk, a lost lock shows here)...
      this.#statements.healthWrite.run();
      // ...and the file as a new connection sees it: this connection's page cache can hide a
      // file that was overwritten or damaged underneath it.
      if (this.#path !== ":memory:") {
        const fresh = new Database(this.#path, { readonly: true, fileMustExist: true });
        try {
          fresh.pragma("busy_timeout = 1000");
          fresh.prepare(healthReadSql).get();
        } finally {
          fresh.close();
        }
      }
    } catch (error) {
      throw new StoreError({
        reason: "unavailable",
        message: `the SQLite database ${this.#path} cannot serve: ${(error as Error).message}`,
        cause: error,
      });
    }
  }

  #moveHead(input: AppendMessagesInput | StartEpochInput, create: boolean): void {
    const now = this.#now();
    if (create) {
      this.#statements.insertConversation.run(
        input.tenant,
        input.conversationId,
        input.next.epoch,
        input.next.messageCount,
        input.next.headDigest,
        now,
        now,
      );
    }
    this.#statements.moveHead.run(
      input.next.epoch,
      input.next.messageCount,
      input.next.headDigest,
      now,
      input.lastRunId ?? null,
      input.promptSpecInput === undefined ? null : JSON.stringify(input.promptSpecInput),
      input.tenant,
      input.conversationId,
    );
    if (input.turns !== undefined && input.turns.length > 0) this.#upsertTurns(input, input.turns);
  }

  #upsertTurns(
    input: { tenant: string; conversationId: string },
    turns: readonly StoredTurn[],
  ): void {
    const { seq } = this.#statements.nextTurnSeq.get(input.tenant, input.conversationId) as {
      seq: number;
    };
    turns.forEach((turn, offset) => {
      this.#statements.upsertTurn.run(
        input.tenant,
        input.conversationId,
        seq + offset,
        turn.eventId,
        JSON.stringify(turn.record),
      );
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
    const row = this.#statements.getRun.get(tenant, conversationId, runId) as RunRow | undefined;
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

  #saveRun(
    { tenant, conversationId, run }: { tenant: string; conversationId: string; run: StoredRun },
    now: number,
  ): void {
    const ended = run.status === "running" ? null : now;
    this.#statements.saveRun.run(
      tenant,
      conversationId,
      run.runId,
      run.status,
      run.error === undefined ? null : JSON.stringify(run.error),
      run.finalText ?? null,
      now,
      ended,
    );
  }

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
    const now = this.#now();
    const result = this.#write(() =>
      this.#statements.acquireRun.run(tenant, conversationId, runId, now + leaseMs, now),
    );
    return result.changes === 1;
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
    this.#write(() => this.#statements.releaseRun.run(tenant, conversationId, runId));
  }

  /** Extends a held run lease; false when the lease was lost. */
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
    const result = this.#write(() =>
      this.#statements.renewRun.run(this.#now() + leaseMs, tenant, conversationId, runId),
    );
    return result.changes === 1;
  }

  /**
   * The embedded store serves one gateway process: on start, locks left by a process that died
   * (kill -9) belong to nobody and are dropped. A shared database relies on lease expiry instead.
   */
  async clearRunLocks(): Promise<number> {
    return this.#db.prepare("DELETE FROM run_locks").run().changes;
  }

  async acknowledgedClientBlobs({
    tenant,
    conversationId,
    blobIds,
  }: ClientBlobsInput): Promise<ReadonlySet<string>> {
    if (blobIds.length === 0) return new Set();
    const rows = this.#statements.acknowledgedClientBlobs.all(
      tenant,
      conversationId,
      JSON.stringify(blobIds),
    ) as { blob_id: string }[];
    return new Set(rows.map((row) => row.blob_id));
  }

  async recordClientBlobs({ tenant, conversationId, blobIds }: ClientBlobsInput): Promise<void> {
    if (blobIds.length === 0) return;
    this.#write(() =>
      this.#statements.recordClientBlobs.run(tenant, conversationId, JSON.stringify(blobIds)),
    );
  }

  /**
   * A write outside a transaction (one statement commits on its own). The writes of serving go
   * through this or `#transaction`, which tell the WAL checkpointer of them (start-up's migrations
   * and lock clearing, and the health probe's one-row touch, are not worth a checkpoint).
   */
  #write<T>(work: () => T): T {
    const result = work();
    this.#noteWrite();
    return result;
  }

  #noteWrite(): void {
    this.#checkpointer?.noteWrite();
  }

  async close(): Promise<void> {
    try {
      await this.#checkpointer?.close();
      if (this.#db.open) this.#db.close();
    } finally {
      this.#ownerLock?.release();
    }
  }
}

/** One row of each table a request reads (schema problems, unreadable pages show here). */
const healthReadSql = `SELECT
  (SELECT COUNT(*) FROM (SELECT 1 FROM conversations LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM messages LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM blobs LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM blob_chunks LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM turns LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM runs LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM run_locks LIMIT 1)) +
  (SELECT COUNT(*) FROM (SELECT 1 FROM client_blobs LIMIT 1)) AS rows`;

/**
 * The request path's statements, prepared once per connection (after the migrations ran):
 * preparing one costs about as much as running it.
 */
function prepareStatements(db: Database.Database) {
  return {
    conversationRow: db.prepare(
      `SELECT ${conversationColumns} FROM conversations WHERE tenant = ? AND conversation_id = ?`,
    ),
    acquireRun: db.prepare(
      `INSERT INTO run_locks (tenant, conversation_id, run_id, lease_until) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant, conversation_id) DO UPDATE SET run_id = excluded.run_id, lease_until = excluded.lease_until
       WHERE run_locks.lease_until < ?`,
    ),
    releaseRun: db.prepare(
      "DELETE FROM run_locks WHERE tenant = ? AND conversation_id = ? AND run_id = ?",
    ),
    renewRun: db.prepare(
      "UPDATE run_locks SET lease_until = ? WHERE tenant = ? AND conversation_id = ? AND run_id = ?",
    ),
    blobExists: db.prepare("SELECT 1 FROM blobs WHERE id = ?"),
    blobRow: db.prepare("SELECT size, chunk_count, bytes FROM blobs WHERE id = ?"),
    blobBytes: db.prepare("SELECT bytes FROM blobs WHERE id = ?"),
    blobChunk: db.prepare("SELECT bytes FROM blob_chunks WHERE blob_id = ? AND seq = ?"),
    upsertBlob: db.prepare(
      `INSERT INTO blobs (id, size, chunk_count, bytes) VALUES (?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET size = excluded.size, chunk_count = excluded.chunk_count, bytes = excluded.bytes`,
    ),
    insertBlobChunk: db.prepare("INSERT INTO blob_chunks (blob_id, seq, bytes) VALUES (?, ?, ?)"),
    deleteBlobChunks: db.prepare("DELETE FROM blob_chunks WHERE blob_id = ?"),
    // Small blobs' bytes come with the rows; a chunked blob's are read piece by piece.
    messageRowsWithBytes: db.prepare(
      `SELECT m.message_id, m.blob_id, b.size, b.chunk_count,
              CASE WHEN b.chunk_count = 0 THEN b.bytes END AS bytes
       FROM messages m LEFT JOIN blobs b ON b.id = m.blob_id
       WHERE m.tenant = ? AND m.conversation_id = ? AND m.epoch = ? ORDER BY m.seq`,
    ),
    messageRows: db.prepare(
      `SELECT m.message_id, m.blob_id, b.size, b.chunk_count, NULL AS bytes
       FROM messages m LEFT JOIN blobs b ON b.id = m.blob_id
       WHERE m.tenant = ? AND m.conversation_id = ? AND m.epoch = ? ORDER BY m.seq`,
    ),
    healthRead: db.prepare(healthReadSql),
    healthWrite: db.prepare(
      "UPDATE schema_migrations SET applied_at = applied_at WHERE version = (SELECT MAX(version) FROM schema_migrations)",
    ),
    insertMessage: db.prepare(
      "INSERT INTO messages (tenant, conversation_id, epoch, seq, message_id, blob_id) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    insertConversation: db.prepare(
      `INSERT INTO conversations (tenant, conversation_id, epoch, message_count, head_digest, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    moveHead: db.prepare(
      `UPDATE conversations SET epoch = ?, message_count = ?, head_digest = ?, updated_at = ?,
         last_run_id = COALESCE(?, last_run_id),
         prompt_spec_input = COALESCE(?, prompt_spec_input)
       WHERE tenant = ? AND conversation_id = ?`,
    ),
    recordRunMetadata: db.prepare(
      `UPDATE conversations SET updated_at = ?,
         last_run_id = COALESCE(?, last_run_id),
         input_tokens = COALESCE(?, input_tokens), cached_input_tokens = COALESCE(?, cached_input_tokens),
         cache_write_tokens = COALESCE(?, cache_write_tokens), output_tokens = COALESCE(?, output_tokens),
         last_input_tokens = COALESCE(?, last_input_tokens),
         last_input_message_count = COALESCE(?, last_input_message_count)
       WHERE tenant = ? AND conversation_id = ?`,
    ),
    nextTurnSeq: db.prepare(
      "SELECT COALESCE(MAX(seq) + 1, 0) AS seq FROM turns WHERE tenant = ? AND conversation_id = ?",
    ),
    upsertTurn: db.prepare(
      `INSERT INTO turns (tenant, conversation_id, seq, event_id, record) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tenant, conversation_id, event_id) DO UPDATE SET record = excluded.record`,
    ),
    getRun: db.prepare(
      "SELECT run_id, status, error, final_text FROM runs WHERE tenant = ? AND conversation_id = ? AND run_id = ?",
    ),
    // The blob ids travel as one JSON array: any number of them in one statement.
    acknowledgedClientBlobs: db.prepare(
      `SELECT blob_id FROM client_blobs WHERE tenant = ? AND conversation_id = ?
         AND blob_id IN (SELECT value FROM json_each(?))`,
    ),
    recordClientBlobs: db.prepare(
      `INSERT OR IGNORE INTO client_blobs (tenant, conversation_id, blob_id)
       SELECT ?, ?, value FROM json_each(?)`,
    ),
    saveRun: db.prepare(
      `INSERT INTO runs (tenant, conversation_id, run_id, status, error, final_text, started_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (tenant, conversation_id, run_id) DO UPDATE SET
         status = excluded.status, error = excluded.error, final_text = excluded.final_text, ended_at = excluded.ended_at`,
    ),
  };
}
