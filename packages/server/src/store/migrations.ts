/**
 * Versioned schema migrations of the SQLite store, applied in order inside one transaction each.
 * Never edit a published migration: add the next version, here and in `postgres-migrations.ts`
 * (the two stores keep the same version numbers for the same schema).
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
  /**
   * The migration rebuilds a table other tables reference: it runs with foreign keys off (SQLite
   * cannot turn them off inside a transaction), and every reference is checked after it.
   */
  readonly rebuildsReferencedTable?: boolean;
}

/** Blobs up to this size are stored in one row; larger ones in pieces of this size. */
export const blobChunkBytes = 1024 * 1024;

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description:
      "conversations, content-addressed blobs, append-only messages by epoch, turns, runs",
    sql: `
      CREATE TABLE blobs (
        id TEXT PRIMARY KEY,           -- sha256 of the bytes (canonical JSON of a message)
        bytes BLOB NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE conversations (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        message_count INTEGER NOT NULL,
        head_digest TEXT NOT NULL,
        last_run_id TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        cached_input_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        last_input_tokens INTEGER,     -- anchor for the next token estimate
        last_input_message_count INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, conversation_id)
      ) WITHOUT ROWID;

      CREATE TABLE messages (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        blob_id TEXT NOT NULL REFERENCES blobs (id),
        PRIMARY KEY (tenant, conversation_id, epoch, seq),
        UNIQUE (tenant, conversation_id, epoch, message_id)
      ) WITHOUT ROWID;

      CREATE TABLE turns (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event_id TEXT NOT NULL,
        record TEXT NOT NULL,          -- JSON of the turn record (projection layer)
        PRIMARY KEY (tenant, conversation_id, seq),
        UNIQUE (tenant, conversation_id, event_id)
      ) WITHOUT ROWID;

      -- One live run per conversation; a crashed process's lease expires by itself.
      CREATE TABLE run_locks (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        lease_until INTEGER NOT NULL,
        PRIMARY KEY (tenant, conversation_id)
      ) WITHOUT ROWID;

      CREATE TABLE runs (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        status TEXT NOT NULL,          -- running | completed | awaiting-tools | cancelled | failed
        error TEXT,                    -- JSON {code, message}
        final_text TEXT,
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        PRIMARY KEY (tenant, conversation_id, run_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description:
      "the MCP servers of the latest request context, so every action rebuilds the same tools",
    sql: `ALTER TABLE conversations ADD COLUMN prompt_spec_input TEXT;`,
  },
  {
    version: 3,
    description:
      "the Cursor wire's client blob ledger: per conversation, the blobs the IDE already holds",
    sql: `
      CREATE TABLE client_blobs (
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        blob_id TEXT NOT NULL,         -- the wire's blob id (lowercase hex)
        PRIMARY KEY (tenant, conversation_id, blob_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    description:
      "large blobs in 1 MiB chunks, blob lookups that never read a large row (SQLite: a rowid blob table)",
    rebuildsReferencedTable: true,
    // A WITHOUT ROWID table keeps whole rows in its b-tree, interior cells included, and SQLite
    // reads a cell's entire payload (overflow pages and all) to compare its key: after a few
    // 20 MiB blobs, every lookup of a small blob read megabytes. In a rowid table the id index
    // holds only ids; a blob's bytes are read when asked for, a large one piece by piece.
    sql: `
      CREATE TABLE blobs_v4 (
        id TEXT NOT NULL PRIMARY KEY,  -- sha256 of the bytes (canonical JSON of a message)
        size INTEGER NOT NULL,         -- bytes in all
        chunk_count INTEGER NOT NULL,  -- 0: the bytes are in this row; else rows in blob_chunks
        bytes BLOB                     -- NULL when chunked
      );

      CREATE TABLE blob_chunks (
        blob_id TEXT NOT NULL,
        seq INTEGER NOT NULL,          -- 0, 1, ...: byte offset seq * ${blobChunkBytes}
        bytes BLOB NOT NULL,
        PRIMARY KEY (blob_id, seq)
      );

      INSERT INTO blobs_v4 (id, size, chunk_count, bytes)
        SELECT id, length(bytes),
               CASE WHEN length(bytes) > ${blobChunkBytes}
                    THEN (length(bytes) + ${blobChunkBytes - 1}) / ${blobChunkBytes} ELSE 0 END,
               CASE WHEN length(bytes) > ${blobChunkBytes} THEN NULL ELSE bytes END
        FROM blobs;

      INSERT INTO blob_chunks (blob_id, seq, bytes)
        WITH RECURSIVE pieces (blob_id, seq, chunk_count) AS (
          SELECT id, 0, chunk_count FROM blobs_v4 WHERE chunk_count > 0
          UNION ALL
          SELECT blob_id, seq + 1, chunk_count FROM pieces WHERE seq + 1 < chunk_count
        )
        SELECT pieces.blob_id, pieces.seq,
               substr(blobs.bytes, pieces.seq * ${blobChunkBytes} + 1, ${blobChunkBytes})
        FROM pieces JOIN blobs ON blobs.id = pieces.blob_id;

      DROP TABLE blobs;
      ALTER TABLE blobs_v4 RENAME TO blobs;
    `,
  },
  {
    version: 5,
    description:
      "usage records of provider calls: provider-reported tokens, timings, prefix comparison with the previous call",
    sql: `
      -- One row per provider call (O(1) bytes; divergence_view only where the prefix broke,
      -- capped at 32 KiB). AUTOINCREMENT: seq never goes back, even after pruning everything,
      -- so a page cursor stays valid.
      CREATE TABLE provider_calls (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        call_id TEXT NOT NULL UNIQUE,
        tenant TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        kind TEXT NOT NULL,            -- model | summarizer
        attempt INTEGER NOT NULL,
        epoch INTEGER NOT NULL,
        started_at INTEGER NOT NULL,   -- ms since the Unix epoch
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        catalog_model TEXT NOT NULL,
        outcome TEXT NOT NULL,         -- ok | failed | cancelled
        error_code TEXT,
        error_message TEXT,
        error_retryable INTEGER,
        input_tokens INTEGER,          -- NULL: the provider reported no usage
        cached_input_tokens INTEGER,
        cache_write_tokens INTEGER,
        cache_write_1h_tokens INTEGER,
        output_tokens INTEGER,
        ttft_ms REAL,
        duration_ms REAL NOT NULL,
        overhead_ms REAL NOT NULL,
        prefix_status TEXT NOT NULL,   -- first | extends | broke | compaction | not-compared
        history_items INTEGER NOT NULL,
        prefix_digest TEXT,
        shared_items INTEGER,
        previous_items INTEGER,
        previous_call_id TEXT,
        divergence_path TEXT,
        cause_kind TEXT,
        cause TEXT,
        divergence_view TEXT,
        process_id TEXT NOT NULL,
        process_started_at INTEGER NOT NULL
      );
      CREATE INDEX provider_calls_by_conversation ON provider_calls (tenant, conversation_id, seq);
      CREATE INDEX provider_calls_by_time ON provider_calls (started_at);
    `,
  },
];
