import type { CanonicalMessage, ContentPart, PendingToolCall } from "@cursor/run";
import type { ConversationHead, TurnRecord } from "./conversation-head.js";
import type { RunProgress } from "./run-progress.js";

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

/** What every plan says, whatever happens next. */
interface TurnPlanBase {
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
   * The event's messages in order: synthetic results closing abandoned tool calls, then the
   * event's own messages. A retry lists its stored messages verbatim; appending them is a no-op.
   */
  readonly initialMessages: readonly CanonicalMessage[];
  /**
   * The messages of `initialMessages` that are new to the history, as `history.check` validated
   * them (frozen copies that carry their digests): what committing the plan writes.
   */
  readonly appended: readonly CanonicalMessage[];
  /** The record of the event this request is about (the stored one on a retry). */
  readonly turn?: TurnRecord;
  /** Records new to `head.turns`, in order (empty for retries and duplicates). */
  readonly newTurns: readonly TurnRecord[];
  /** True when the request repeats an event that was already accepted. */
  readonly retry: boolean;
}

/** The model runs: commit `appended` together with its first answer (the model loop's `pending`). */
export interface CallModelPlan extends TurnPlanBase {
  readonly next: "call-model";
  /**
   * The current turn's initial messages as compaction keeps them (request context and runtime
   * messages of the turn in progress, without closing results): the model loop's
   * `currentInitialMessages`, for a compaction during this turn.
   */
  readonly currentInitialMessages: readonly CanonicalMessage[];
  /**
   * The tools the request's mode may call (provider-native allowed-tool restriction); attached
   * once, by `prepareTurn`. Absent: every tool of the prompt spec.
   */
  readonly allowedTools?: readonly string[];
}

/**
 * The request's work was done before (a retried event whose run completed, events that were all
 * delivered, a `summarize` with nothing to summarise): answer `completed` without a provider
 * call. Appends nothing.
 */
export interface DonePlan extends TurnPlanBase {
  readonly next: "done";
}

/**
 * The run waits for tool results: commit `appended` (the results that arrived) and answer
 * `awaiting-tools`. On a `retry`, the client lost the stream that carried the calls: send them
 * again.
 */
export interface AwaitToolsPlan extends TurnPlanBase {
  readonly next: "await-tools";
  /** Tool calls still without a result once `appended` is committed (never empty). */
  readonly pendingToolCalls: readonly PendingToolCall[];
}

/**
 * `summarize`: summarise the epoch with `appended` (closing results for abandoned calls, which
 * are summarised with it, never stored alone) and start a new one (manual compaction).
 */
export interface CompactPlan extends TurnPlanBase {
  readonly next: "compact";
  readonly reason: "manual";
}

/**
 * What one request does to a conversation, decided before anything is stored: one variant per
 * thing that happens next.
 */
export type TurnPlan = CallModelPlan | DonePlan | AwaitToolsPlan | CompactPlan;

/** What happens next, by name. */
export type TurnPlanNext = TurnPlan["next"];

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A plan before `finalizeTurnPlan` checked it against the head. */
export type TurnPlanDraft = DistributiveOmit<TurnPlan, "appended" | "epoch">;

/** The fields of a draft every variant has. */
export type TurnPlanDraftBase = Omit<TurnPlanBase, "appended" | "epoch">;

/**
 * The draft of a request that repeats accepted events (a retry, a re-delivery, a re-sent tool
 * result): what happens next follows from how far its run got. `pendingToolCalls` is read only
 * when the run waits for tools.
 */
export function draftForProgress({
  base,
  progress,
  currentInitialMessages,
  pendingToolCalls,
}: {
  base: TurnPlanDraftBase;
  progress: RunProgress;
  currentInitialMessages: readonly CanonicalMessage[];
  pendingToolCalls: () => readonly PendingToolCall[];
}): TurnPlanDraft {
  switch (progress) {
    case "open":
      return { ...base, next: "call-model", currentInitialMessages };
    case "awaiting-tools":
      return { ...base, next: "await-tools", pendingToolCalls: pendingToolCalls() };
    case "completed":
      return { ...base, next: "done" };
    default: {
      const exhaustive: never = progress;
      throw new Error(`unknown run progress ${String(exhaustive)}`);
    }
  }
}

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
  // Planner invariants, so every consumer can trust the variant it switches on.
  if (draft.next === "done" && appended.length > 0) {
    throw new Error(`a ${draft.action} plan that is done must not append anything`);
  }
  if (draft.next === "await-tools" && draft.pendingToolCalls.length === 0) {
    throw new Error(`a ${draft.action} plan awaiting tools must name the calls it waits for`);
  }
  return Object.freeze({ ...draft, appended, epoch: head.history.epoch });
}
