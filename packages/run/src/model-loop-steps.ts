import type { CanonicalMessage } from "./canonical-message.js";
import type { CompactionTrigger } from "./compact-history.js";
import { RunCancelledError } from "./errors.js";
import { LoopFailure, describeLoopError } from "./loop-error.js";
import type { ModelLoopOptions } from "./model-loop-types.js";
import { currentTurnMessages } from "./run-state.js";

export interface LoopState {
  pending: readonly CanonicalMessage[];
  /** Messages of this turn that reached the history (via `commit` or a compaction). */
  readonly appended: CanonicalMessage[];
  readonly compactions: { epoch: number; trigger: CompactionTrigger }[];
}

/** Validates, persists through the commit port, then appends in memory: all or nothing. */
export async function commitBatch(
  options: ModelLoopOptions,
  state: LoopState,
  messages: readonly CanonicalMessage[],
): Promise<void> {
  const { history } = options;
  const checked = history.check(messages);
  if (options.signal?.aborted) throw new RunCancelledError({ cause: options.signal.reason });
  await options.commit({
    conversationId: options.conversationId,
    runId: options.runId,
    epoch: history.epoch,
    baseHeadDigest: history.headDigest,
    messages: checked.appended,
    digests: checked.digests,
    headDigest: checked.headDigest,
    length: checked.length,
  });
  // The checked copies carry their digests: this append hashes nothing (and is a no-op when the
  // port appended them already).
  history.append(checked.appended);
  state.appended.push(...checked.appended);
  state.pending = [];
}

/**
 * Runs the compaction port and checks it kept the current messages; the pending ones are then
 * part of the new epoch.
 */
export async function compact(
  options: ModelLoopOptions,
  state: LoopState,
  trigger: CompactionTrigger,
): Promise<void> {
  const { history, compaction } = options;
  if (compaction === undefined) return;
  const pending = history.check(state.pending).appended;
  const current = currentTurnMessages({
    history,
    pending,
    ...(options.currentInitialMessages ? { initial: options.currentInitialMessages } : {}),
  });
  const before = history.epoch;
  options.onEvent?.({ type: "compaction.started", data: { reason: "auto" } });
  try {
    await compaction.compact({ reason: "auto", trigger, history, current, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted || RunCancelledError.isInstance(error)) throw error;
    const { message } = describeLoopError(error);
    throw new LoopFailure({ code: "compaction_failed", message, cause: error });
  }
  if (history.epoch <= before || current.some((message) => !history.has(message.id))) {
    throw new LoopFailure({
      code: "compaction_failed",
      message: "the compaction port did not start an epoch ending with the current messages",
    });
  }
  state.appended.push(...pending.map((message) => history.get(message.id) ?? message));
  state.pending = [];
  state.compactions.push({ epoch: history.epoch, trigger });
  options.onEvent?.({ type: "compaction", data: { reason: "auto", epoch: history.epoch } });
}
