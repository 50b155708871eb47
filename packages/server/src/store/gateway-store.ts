import type { CanonicalMessage, JsonValue } from "@cursor/run";

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
  /** The current epoch's messages, in order, each verified against its content address. */
  readonly messages: readonly CanonicalMessage[];
  readonly headDigest: string;
  /** Turn records (opaque JSON owned by the projection layer), oldest first. */
  readonly turns: readonly JsonValue[];
  readonly lastRunId?: string;
  readonly usage: UsageTotals;
  /** Input tokens of the last provider call and how many messages that call covered. */
  readonly lastInput?: { readonly inputTokens: number; readonly messageCount: number };
  /** What the conversation's prompt spec is built from (JSON owned by the gateway). */
  readonly promptSpecInput?: JsonValue;
}

export interface HeadVersion {
  readonly epoch: number;
  readonly headDigest: string;
  readonly messageCount: number;
}

/**
 * One atomic write of a turn. `expected` is the head the writer started from (optimistic
 * concurrency: a different head in the store aborts the commit); `null` creates the conversation.
 */
export interface CommitInput {
  readonly tenant: string;
  readonly conversationId: string;
  readonly expected: HeadVersion | null;
  /** `append`: add to the epoch; `new-epoch`: the messages replace the history as epoch + 1. */
  readonly mode: "append" | "new-epoch";
  readonly messages: readonly CanonicalMessage[];
  /** Content addresses of `messages`, computed by the caller's HistoryLog. */
  readonly digests: readonly string[];
  readonly next: HeadVersion;
  readonly turns?: readonly { readonly eventId: string; readonly record: JsonValue }[];
  readonly lastRunId?: string;
  readonly usage?: UsageTotals;
  readonly lastInput?: { readonly inputTokens: number; readonly messageCount: number };
  readonly run?: StoredRun;
  readonly promptSpecInput?: JsonValue;
}

/**
 * The persistence port of the gateway. Narrow on purpose: a shared SQL database (PostgreSQL)
 * implements the same calls so several gateway processes can serve one conversation set.
 */
export interface GatewayStore {
  load(tenant: string, conversationId: string): Promise<StoredConversation | undefined>;
  /** Cheap check used to decide whether a cached head is still current. */
  headVersion(tenant: string, conversationId: string): Promise<HeadVersion | undefined>;
  commit(input: CommitInput): Promise<void>;
  getRun(tenant: string, conversationId: string, runId: string): Promise<StoredRun | undefined>;
  saveRun(tenant: string, conversationId: string, run: StoredRun): Promise<void>;
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
  close(): Promise<void>;
}
