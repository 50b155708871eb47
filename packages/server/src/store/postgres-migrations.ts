import { blobChunkBytes } from "./migrations.js";
import type { Migration } from "./migrations.js";

/**
 * Versioned schema migrations of the PostgreSQL store, applied on start under an advisory lock,
 * each in its own transaction. The same version numbers and descriptions as the SQLite store's
 * (`migrations.ts`): version N is the same schema in both. Never edit a published migration: add
 * the next version to both lists.
 */
export const postgresMigrations: readonly Migration[] = [
  {
    version: 1,
    description:
      "conversations, content-addressed blobs, append-only messages by epoch, turns, runs",
    sql: `
      CREATE TABLE blobs (
        id text PRIMARY KEY,           -- sha256 of the bytes (canonical JSON of a message)
        bytes bytea NOT NULL
      );

      CREATE TABLE conversations (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        epoch integer NOT NULL,
        message_count integer NOT NULL,
        head_digest text NOT NULL,
        last_run_id text,
        input_tokens bigint NOT NULL DEFAULT 0,
        cached_input_tokens bigint NOT NULL DEFAULT 0,
        cache_write_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        last_input_tokens bigint,      -- anchor for the next token estimate
        last_input_message_count integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, conversation_id)
      );

      CREATE TABLE messages (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        epoch integer NOT NULL,
        seq integer NOT NULL,
        message_id text NOT NULL,
        blob_id text NOT NULL REFERENCES blobs (id),
        PRIMARY KEY (tenant, conversation_id, epoch, seq),
        UNIQUE (tenant, conversation_id, epoch, message_id)
      );

      CREATE TABLE turns (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        seq integer NOT NULL,
        event_id text NOT NULL,
        record text NOT NULL,          -- JSON of the turn record (projection layer), as written
        PRIMARY KEY (tenant, conversation_id, seq),
        UNIQUE (tenant, conversation_id, event_id)
      );

      -- One live run per conversation across every gateway process. A lease: the holder (a
      -- process's liveness key, see postgres-store.ts) renews it; it lapses at lease_until, or
      -- at once when the holder's database session is gone.
      CREATE TABLE run_locks (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        run_id text NOT NULL,
        holder integer NOT NULL,
        lease_until timestamptz NOT NULL,
        PRIMARY KEY (tenant, conversation_id)
      );

      CREATE TABLE runs (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        run_id text NOT NULL,
        status text NOT NULL,          -- running | completed | awaiting-tools | cancelled | failed
        error text,                    -- JSON {code, message}
        final_text text,
        started_at timestamptz NOT NULL,
        ended_at timestamptz,
        PRIMARY KEY (tenant, conversation_id, run_id)
      );
    `,
  },
  {
    version: 2,
    description:
      "the MCP servers of the latest request context, so every action rebuilds the same tools",
    sql: `ALTER TABLE conversations ADD COLUMN prompt_spec_input text;`,
  },
  {
    version: 3,
    description:
      "the Cursor wire's client blob ledger: per conversation, the blobs the IDE already holds",
    sql: `
      CREATE TABLE client_blobs (
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        blob_id text NOT NULL,         -- the wire's blob id (lowercase hex)
        PRIMARY KEY (tenant, conversation_id, blob_id)
      );
    `,
  },
  {
    version: 4,
    description:
      "large blobs in 1 MiB chunks, blob lookups that never read a large row (SQLite: a rowid blob table)",
    // PostgreSQL keeps large values out of line (TOAST) already; the chunks bound what one query
    // result holds, which the client parses on the gateway's event loop.
    sql: `
      ALTER TABLE blobs ADD COLUMN size integer;
      ALTER TABLE blobs ADD COLUMN chunk_count integer NOT NULL DEFAULT 0;
      ALTER TABLE blobs ALTER COLUMN bytes DROP NOT NULL;
      UPDATE blobs SET size = length(bytes);
      ALTER TABLE blobs ALTER COLUMN size SET NOT NULL;

      CREATE TABLE blob_chunks (
        blob_id text NOT NULL,
        seq integer NOT NULL,          -- 0, 1, ...: byte offset seq * ${blobChunkBytes}
        bytes bytea NOT NULL,
        PRIMARY KEY (blob_id, seq)
      );

      INSERT INTO blob_chunks (blob_id, seq, bytes)
        SELECT id, piece, substring(bytes FROM piece * ${blobChunkBytes} + 1 FOR ${blobChunkBytes})
        FROM blobs, generate_series(0, (length(bytes) - 1) / ${blobChunkBytes}) AS piece
        WHERE length(bytes) > ${blobChunkBytes};
      UPDATE blobs
        SET chunk_count = (length(bytes) + ${blobChunkBytes - 1}) / ${blobChunkBytes}, bytes = NULL
        WHERE length(bytes) > ${blobChunkBytes};
    `,
  },
  {
    version: 5,
    description:
      "usage records of provider calls: provider-reported tokens, timings, prefix comparison with the previous call",
    sql: `
      -- One row per provider call (O(1) bytes; divergence_view only where the prefix broke,
      -- capped at 32 KiB). Times are ms since the Unix epoch, as in the SQLite store.
      CREATE TABLE provider_calls (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        call_id text NOT NULL UNIQUE,
        tenant text NOT NULL,
        conversation_id text NOT NULL,
        run_id text NOT NULL,
        kind text NOT NULL,            -- model | summarizer
        attempt integer NOT NULL,
        epoch integer NOT NULL,
        started_at bigint NOT NULL,
        provider text NOT NULL,
        model text NOT NULL,
        catalog_model text NOT NULL,
        outcome text NOT NULL,         -- ok | failed | cancelled
        error_code text,
        error_message text,
        error_retryable boolean,
        input_tokens bigint,           -- NULL: the provider reported no usage
        cached_input_tokens bigint,
        cache_write_tokens bigint,
        cache_write_1h_tokens bigint,
        output_tokens bigint,
        ttft_ms double precision,
        duration_ms double precision NOT NULL,
        overhead_ms double precision NOT NULL,
        prefix_status text NOT NULL,   -- first | extends | broke | compaction | not-compared
        history_items integer NOT NULL,
        prefix_digest text,
        shared_items integer,
        previous_items integer,
        previous_call_id text,
        divergence_path text,
        cause_kind text,
        cause text,
        divergence_view text,
        process_id text NOT NULL,
        process_started_at bigint NOT NULL
      );
      CREATE INDEX provider_calls_by_conversation ON provider_calls (tenant, conversation_id, seq);
      CREATE INDEX provider_calls_by_time ON provider_calls (started_at);
    `,
  },
];
