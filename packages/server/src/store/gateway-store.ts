import type { CanonicalMessage, JsonValue } from "@cursor/run";
import type { ProviderCallStore } from "./provider-call-store.js";

export type RunStatus = "running" | "completed" | "awaiting-tools" | "cancelled" | "failed";

export interface UsageTotals {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
}

export interface StoredRun {
  readonly runId: string;
  readonly status: RunStatus;
  readonly error?: { readonly code: string; readonly message: string };
  readonly finalText?: string;
}

/** A conversation's persisted head: everything needed to continue it. */
export interface StoredConversation {
  readonly tenant: string;
  readonly conversationId: string;
  readonly epoch: number;
  /**
   * The current epoch's messages, in order, each verified against its content address (decoded
   * with `decodeCanonicalMessage`, so a `HistoryLog` built from them hashes nothing again).
   */
  readonly messages: readonly CanonicalMessage[];
  readonly headDigest: string;
  /** Turn records (opaque JSON owned by the projection layer), oldest first. */
  readonly turns: readonly JsonValue[];
  readonly lastRunId?: string;
  readonly usage: UsageTotals;
  /** Input tokens of the last provider call and how many messages that call covered. */
  readonly lastInput?: LastInput;
  /** What the conversation's prompt spec is built from (JSON owned by the gateway). */
  readonly promptSpecInput?: JsonValue;
}

export interface HeadVersion {
  readonly epoch: number;
  readonly headDigest: string;
  readonly messageCount: number;
}

export interface LastInput {
  readonly inputTokens: number;
  readonly messageCount: number;
}

/** One accepted event's record, keyed by its event id (a retry rewrites it in place). */
export interface StoredTurn {
  readonly eventId: string;
  readonly record: JsonValue;
}

/**
 * What a write that moves the head says. `expected` is the head the writer started from: a
 * different head in the store refuses the write (`StoreError` `head-moved`), `null` creates the
 * conversation (refused when it exists).
 */
interface HeadWrite {
  readonly tenant: string;
  readonly conversationId: string;
  readonly expected: HeadVersion | null;
  /** The messages written, in order, with the content addresses their HistoryLog computed. */
  readonly messages: readonly CanonicalMessage[];
  readonly digests: readonly string[];
  /** The head after the write. */
  readonly next: HeadVersion;
  /** Turn records to add (or rewrite, by event id). */
  readonly turns?: readonly StoredTurn[];
  /** The run id of the conversation's most recent accepted run request. */
  readonly lastRunId?: string;
  /** The prompt-spec input of the accepted request context. */
  readonly promptSpecInput?: JsonValue;
}

/**
 * Appends a turn's messages to the current epoch: after `expected.messageCount` (from 0 when the
 * conversation is created, e.g. with a hydrated history), `next` in the same epoch.
 */
export type AppendMessagesInput = HeadWrite;

/**
 * Starts epoch `next.epoch`, any epoch after `expected.epoch` (a compaction's next one, or the
 * later epoch of a verified client checkpoint the store catches up to): `messages` are its whole
 * history.
 */
export type StartEpochInput = HeadWrite;

/**
 * Records how a run ended. With the head it ran on, the conversation's metadata moves in the
 * same transaction (guarded by that head): the accepted run, the usage totals, the last call's
 * input tokens. Without one (`expected: null`, the conversation is not stored) only the run row.
 */
export type RecordRunInput = {
  readonly tenant: string;
  readonly conversationId: string;
  readonly run: StoredRun;
} & (
  | { readonly expected: null }
  | {
      readonly expected: HeadVersion;
      readonly lastRunId?: string;
      readonly usage?: UsageTotals;
      readonly lastInput?: LastInput;
    }
);

/** A conversation's blob ids in the client blob ledger (lowercase hex, as the wire names them). */
export interface ClientBlobsInput {
  readonly tenant: string;
  readonly conversationId: string;
  readonly blobIds: readonly string[];
}

/**
 * A conversation's current epoch as its stored bytes (`readHistory`), for serving the history
 * without decoding it: each message's canonical JSON is exactly what its content address covers.
 */
export interface StoredHistoryBytes {
  readonly epoch: number;
  readonly headDigest: string;
  readonly messageCount: number;
  /**
   * One item per message, in order: the pieces of its canonical JSON (a large message in pieces
   * of about 1 MiB, read over several turns of the event loop), given only once all of it
   * matched its content address. A message that does not fails the iteration with a `corrupt`
   * StoreError.
   */
  readonly messages: AsyncIterable<readonly Uint8Array[]>;
}

/**
 * The persistence port of the gateway. Each operation says what it does and is one
 * transaction: a turn's messages are stored all or none, a new epoch replaces the history all or
 * none. Narrow on purpose: a shared SQL database (PostgreSQL) implements the same calls so several
 * gateway processes can serve one conversation set.
 */
export interface GatewayStore {
  /**
   * True when several gateway processes serve this store (PostgreSQL): any of them may take a
   * conversation's next turn the moment a run's answer ends, so a run writes its records before
   * its answer ends. False for a store one process owns (SQLite): the records follow the answer,
   * and that process holds the conversation until they are written.
   */
  readonly sharedAcrossProcesses: boolean;
  load(tenant: string, conversationId: string): Promise<StoredConversation | undefined>;
  /**
   * The current epoch's messages as stored bytes, verified, read incrementally: serving a large
   * conversation never holds the event loop for long nor decodes a message, so it does not slow
   * anyone else's requests. undefined when the conversation is not stored.
   */
  readHistory(tenant: string, conversationId: string): Promise<StoredHistoryBytes | undefined>;
  /** Cheap check used to decide whether a cached head is still current. */
  headVersion(tenant: string, conversationId: string): Promise<HeadVersion | undefined>;
  appendMessages(input: AppendMessagesInput): Promise<void>;
  startEpoch(input: StartEpochInput): Promise<void>;
  recordRun(input: RecordRunInput): Promise<void>;
  getRun(input: {
    tenant: string;
    conversationId: string;
    runId: string;
  }): Promise<StoredRun | undefined>;
  /** Takes the conversation's single run slot; false when another live run holds it. */
  acquireRun(input: {
    tenant: string;
    conversationId: string;
    runId: string;
    leaseMs: number;
  }): Promise<boolean>;
  renewRun(input: {
    tenant: string;
    conversationId: string;
    runId: string;
    leaseMs: number;
  }): Promise<boolean>;
  releaseRun(input: { tenant: string; conversationId: string; runId: string }): Promise<void>;
  /**
   * The Cursor wire's ledger of blobs the IDE holds for a conversation: of `blobIds`, those
   * recorded before. Kept in the store so any gateway process can serve the conversation's next
   * turn without sending the IDE a blob twice.
   */
  acknowledgedClientBlobs(input: ClientBlobsInput): Promise<ReadonlySet<string>>;
  /** Adds blobs the IDE now holds to the conversation's ledger (recording one twice is a no-op). */
  recordClientBlobs(input: ClientBlobsInput): Promise<void>;
  /**
   * Rewrites stored blobs that fail verification from verified copies: each message's canonical
   * JSON must hash to its digest (checked here too). For a conversation whose stored state is
   * damaged and a client that sent a checkpoint covering it; blobs that verify are left alone.
   * Returns how many blobs were rewritten.
   */
  repairBlobs(input: {
    readonly messages: readonly CanonicalMessage[];
    readonly digests: readonly string[];
  }): Promise<number>;
  /**
   * Resolves when the store can serve: it reads and writes. Throws a StoreError (`unavailable`)
   * saying why not; what `/healthz` reports.
   */
  checkHealth(): Promise<void>;
  /** The usage records of provider calls (observations beside the history, never part of it). */
  readonly providerCalls: ProviderCallStore;
  close(): Promise<void>;
}
