/**
 * Versioned schema migrations of the SQLite store, applied in order inside one transaction each.
 * Never edit a published migration: add the next version, here and in `postgres-migrations.ts`
 * (the two stores keep the same version numbers for the same schema).
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

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
];
