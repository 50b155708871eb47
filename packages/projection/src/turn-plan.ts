import type { CanonicalMessage, ContentPart, PendingToolCall } from "@cursor/run";
import type { ConversationHead, TurnRecord } from "./conversation-head.js";

export type TurnAction =
  "user-message" | "tool-results" | "inject-context" | "background-completion" | "summarize";

/** A compiled request context: its text and the digest contexts are compared by. */
export interface CompiledRequestContext {
  readonly text: string;
  /** SHA-256 hex of the compiled context (64 chars). */
  readonly digest: string;
}

/** A compiled runtime message: its parts and the digest of its content with the clock blanked. */
export interface CompiledRuntime {
  readonly content: readonly ContentPart[];
  readonly contentDigest: string;
}

/**
 * What one request does to a conversation, decided before anything is stored. The gateway
 * appends `initialMessages` (atomically, with `commitTurnPlan`), then runs the model loop when
 * `callModel` is true.
 */
export interface TurnPlan {
  readonly action: TurnAction;
  /**
   * The run the model loop continues (assistant ids `assistant:<runId>:<step>`). The request's
   * run id, except for a retry sent under another run id, which continues the original run.
   */
  readonly runId: string;
  /** The request's run id: the head's `lastRunId` once the plan is committed. */
  readonly acceptedRunId: string;
  /** The epoch the plan was made for; committing it to another epoch is refused. */
  readonly epoch: number;
  /**
   * Messages to append, in order: synthetic results closing abandoned tool calls, then the
   * event's messages. A retry lists its stored messages verbatim; appending them is a no-op.
   */
  readonly initialMessages: readonly CanonicalMessage[];
  /** The messages of `initialMessages` that are new to the history (`history.check`). */
  readonly appended: readonly CanonicalMessage[];
  /**
   * The current turn's initial messages as compaction keeps them (request context and runtime
   * messages of the turn in progress, without closing results): pass them to
   * `compactionReplacement` when this turn's model loop compacts.
   */
  readonly currentInitialMessages: readonly CanonicalMessage[];
  /** The record of the event this request is about (the stored one on a retry). */
  readonly turn?: TurnRecord;
  /** Records new to `head.turns`, in order (empty for retries and duplicates). */
  readonly newTurns: readonly TurnRecord[];
  /** True when the model loop must run after the append. */
  readonly callModel: boolean;
  /**
   * True when the request's work was done before (a retried event whose run completed, only
   * delivered events): answer `completed` without a provider call.
   */
  readonly alreadyCompleted: boolean;
  /** True when the request repeats an event that was already accepted. */
  readonly retry: boolean;
  /** Tool calls of `runId` still without a result after the append (answer `awaiting-tools`). */
  readonly pendingToolCalls: readonly PendingToolCall[];
  /** Present for `summarize`: the gateway summarises and resets the epoch (manual compaction). */
  readonly compaction?: "manual";
  /** The tools the request's mode may call (provider-native allowed-tool restriction). */
  readonly allowedTools?: readonly string[];
}

export type TurnPlanDraft = Omit<TurnPlan, "appended" | "epoch">;

/**
 * Validates a draft against the head: `history.check` throws exactly what `append` would, so a
 * plan that is returned can be committed. Records which messages are new.
 */
export function finalizeTurnPlan({
  head,
  draft,
}: {
  head: ConversationHead;
  draft: TurnPlanDraft;
}): TurnPlan {
  const { appended } = head.history.check(draft.initialMessages);
  return Object.freeze({ ...draft, appended, epoch: head.history.epoch });
}
