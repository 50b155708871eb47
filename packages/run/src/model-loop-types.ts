import type { AssistantMessage, CanonicalMessage } from "./canonical-message.js";
import type { CompactionRequest, CompactionTrigger } from "./compact-history.js";
import type { HistoryLog } from "./history-log.js";
import type { LoopError } from "./loop-error.js";
import type { PromptSpec } from "./prompt-spec.js";
import type { FinishReason, ProviderAdapter, Usage, Warning } from "./provider-adapter.js";
import type { Clock, RetryPolicy } from "./retry-policy.js";
import type { TokenAnchor } from "./token-estimate.js";

/**
 * What the loop tells the client while it runs; the gateway writes each as an SSE event named
 * `type` with `data` as its JSON. `retry` is informational (a transient error is being retried);
 * so is `warning` (something in the provider's stream was not understood and was skipped).
 */
export type ModelLoopEvent =
  | { readonly type: "text.delta"; readonly data: { readonly text: string } }
  | { readonly type: "reasoning.delta"; readonly data: { readonly text: string } }
  | {
      readonly type: "tool.call";
      readonly data: { readonly callId: string; readonly name: string; readonly arguments: string };
    }
  | { readonly type: "usage"; readonly data: Usage }
  /**
   * A compaction is about to call the summariser (sent before that call, which can take a
   * while, so a client can show it is summarising); `compaction` follows once the epoch started.
   */
  | { readonly type: "compaction.started"; readonly data: { readonly reason: "auto" } }
  | {
      readonly type: "compaction";
      readonly data: { readonly reason: "auto" | "manual"; readonly epoch: number };
    }
  | { readonly type: "warning"; readonly data: Warning }
  | {
      readonly type: "retry";
      readonly data: {
        readonly attempt: number;
        readonly delayMs: number;
        readonly error: LoopError;
      };
    };

/** One atomic write of the store: all of `messages` appended to `epoch`, or none. */
export interface CommitBatch {
  readonly conversationId: string;
  readonly runId: string;
  readonly epoch: number;
  /** The head digest the batch applies to; a store can reject a head that moved meanwhile. */
  readonly baseHeadDigest: string;
  /** The new messages, validated by the history (frozen copies), in order. */
  readonly messages: readonly CanonicalMessage[];
  /** Their content addresses, computed once by the history's check: store them as they are. */
  readonly digests: readonly string[];
  /** The head digest once the batch is appended. */
  readonly headDigest: string;
  /** Messages in the epoch once the batch is appended. */
  readonly length: number;
}

/**
 * Persists a batch atomically (the server: one SQLite transaction); throws to refuse it. The
 * loop appends the batch to `history` once the port resolved; a port that already appended it
 * (the gateway's head owner moves its head in the same step) leaves that append a no-op.
 */
export type CommitPort = (batch: CommitBatch) => Promise<void> | void;

export interface ModelLoopCompaction {
  /** Compact automatically when the estimated request exceeds this many input tokens. */
  readonly budgetTokens?: number;
  /** The `tokenAnchor` of the previous outcome of this conversation, if any. */
  readonly tokenAnchor?: TokenAnchor | undefined;
  readonly countTokens?: (text: string) => number;
  /**
   * Starts a new epoch [latest request context] + [summary] + [`current`], persisted, and
   * switches `history` to it (`createCompactor` builds one).
   */
  compact(request: CompactionRequest): Promise<unknown>;
}

export interface ModelLoopOptions {
  readonly conversationId: string;
  readonly runId: string;
  readonly model: string;
  readonly promptSpec: PromptSpec;
  readonly allowedTools?: readonly string[];
  readonly maxOutputTokens?: number;
  /** The conversation's in-memory head; the loop appends to it only after `commit` succeeded. */
  readonly history: HistoryLog;
  /** The turn's initial messages (request context, runtime message, tool results), uncommitted. */
  readonly pending: readonly CanonicalMessage[];
  /**
   * The current turn's initial messages that compaction must keep after the summary, when they
   * were committed before the loop ran (e.g. the turn's request context and runtime message).
   * `pending` and an open tool round being answered are always kept as well.
   */
  readonly currentInitialMessages?: readonly CanonicalMessage[];
  readonly provider: ProviderAdapter;
  readonly commit: CommitPort;
  readonly compaction?: ModelLoopCompaction;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: ModelLoopEvent) => void;
  readonly maxToolResultChars?: number;
  readonly userTailText?: string;
  /** Fail (committing nothing) instead of making assistant message number `maxSteps + 1` of a run. */
  readonly maxSteps?: number;
}

export interface ModelLoopOutcome {
  readonly reason: "completed" | "awaiting-tools" | "cancelled" | "failed";
  readonly error?: LoopError;
  /**
   * Messages of this turn now in the history that were not before, in order: the pending ones
   * (committed with the assistant message, or carried into a new epoch by a compaction) and the
   * assistant message. Empty when a model call failed or was cancelled without a compaction.
   */
  readonly appended: readonly CanonicalMessage[];
  readonly assistant?: AssistantMessage;
  readonly finishReason?: FinishReason;
  /** Usage of the successful provider call. */
  readonly usage?: Usage;
  /** Keep it and pass it back as `compaction.tokenAnchor` on the next turn. */
  readonly tokenAnchor?: TokenAnchor;
  readonly compactions: readonly { readonly epoch: number; readonly trigger: CompactionTrigger }[];
}
