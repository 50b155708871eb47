import type { ConversationHead } from "@cursor/projection";
import type { PendingToolCall, Usage, Warning } from "@cursor/run";

export type RunEndReason = "completed" | "awaiting-tools" | "cancelled" | "failed";

/** Why a run failed: a stable snake_case code, a message without secrets, and whether a retry may help. */
export interface RunError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * What a run tells its front door, in order: `run.started` first, `run.ended` exactly once and
 * last. Front-door neutral: the JSON front door writes them as SSE, the Cursor wire as
 * interaction updates.
 */
export type RunEvent =
  | {
      readonly type: "run.started";
      readonly conversationId: string;
      readonly runId: string;
      readonly epoch: number;
    }
  | { readonly type: "text.delta"; readonly text: string }
  | { readonly type: "reasoning.delta"; readonly text: string }
  | {
      readonly type: "tool.call";
      readonly callId: string;
      readonly name: string;
      readonly arguments: string;
    }
  /** Per provider call (the summariser's included). */
  | { readonly type: "usage"; readonly usage: Usage }
  /**
   * A compaction is about to call the summariser (automatic: the model loop found the context
   * too long; manual: a `summarize` request); `compaction` follows once its epoch is stored.
   */
  | { readonly type: "compaction.started"; readonly reason: "auto" | "manual" }
  | { readonly type: "compaction"; readonly reason: "auto" | "manual"; readonly epoch: number }
  /** Something in the provider's stream was not understood and was skipped (informational). */
  | { readonly type: "warning"; readonly warning: Warning }
  /** A transient provider error is being retried (informational). */
  | {
      readonly type: "retry";
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: { readonly code: string; readonly message: string };
    }
  /**
   * After every store write that moved the head (`final: false`), and once more (`final: true`)
   * just before `run.ended` when the conversation is stored. `pendingToolCalls` is the head's
   * open tool round; `promptSpecDigest` the spec its history was built with (checkpoints record it).
   */
  | {
      readonly type: "head";
      readonly head: ConversationHead;
      readonly pendingToolCalls: readonly PendingToolCall[];
      readonly promptSpecDigest: string;
      readonly final: boolean;
    }
  | { readonly type: "run.ended"; readonly reason: RunEndReason; readonly error?: RunError };

/** Where a run's events go; called synchronously, in order. */
export interface RunSink {
  event(event: RunEvent): void;
  /**
   * Called before the run blocks on work of its own (storing the model's answer): a sink that
   * batches its output sends what it holds, so the client sees the text before the store write.
   */
  flush?(): void;
}

/** How a run ended: the same reason and error as its `run.ended` event. */
export interface RunOutcome {
  readonly reason: RunEndReason;
  readonly error?: RunError;
}
