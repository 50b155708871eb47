import type { CanonicalMessage, SummaryMessage } from "./canonical-message.js";
import { collectStream, emptyDraft } from "./collect-stream.js";
import { compactionReplacement, partitionHistory } from "./compaction-partition.js";
import { RunCancelledError } from "./errors.js";
import { fallbackSummary } from "./fallback-summary.js";
import type { HistoryLog } from "./history-log.js";
import { describeLoopError } from "./loop-error.js";
import type { LoopError } from "./loop-error.js";
import { createSummaryMessage } from "./message-builders.js";
import type { ProviderAdapter, Usage } from "./provider-adapter.js";
import { buildSummarizerRequest } from "./summarizer-request.js";

/** What triggered a compaction: the token budget, a provider overflow, or the user. */
export type CompactionTrigger = "budget" | "overflow" | "manual";

/** The compaction port's input: which history to compact and what the current turn keeps. */
export interface CompactionRequest {
  readonly reason: "auto" | "manual";
  readonly trigger: CompactionTrigger;
  readonly history: HistoryLog;
  /** The current turn's initial messages (committed or not); they end the new epoch verbatim. */
  readonly current: readonly CanonicalMessage[];
  readonly signal?: AbortSignal | undefined;
}

/**
 * Persists a new epoch atomically (the server: one SQLite transaction). The compactor then
 * switches the history to it, unless the port already did (the gateway's head owner moves its
 * head in the same step).
 */
export type PersistEpoch = (epoch: {
  readonly epoch: number;
  readonly previousEpoch: number;
  readonly reason: "auto" | "manual";
  readonly summary: SummaryMessage;
  /** The whole history of the new epoch, in order (validated, frozen). */
  readonly messages: readonly CanonicalMessage[];
  /** Content addresses of `messages`, computed once by the validation: store them as they are. */
  readonly digests: readonly string[];
  /** The new epoch's head digest. */
  readonly headDigest: string;
}) => Promise<void> | void;

export interface CompactorConfig {
  readonly provider: ProviderAdapter;
  readonly conversationId: string;
  /** See `ModelRequest.cacheScope`. */
  readonly cacheScope?: string | undefined;
  readonly model: string;
  /** The summariser's instructions (prompt text owned by @cursor/request). */
  readonly instructions: string;
  readonly finalUserText?: string;
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  /** `false` summarises the request context too (manual compaction may re-project it). */
  readonly keepRequestContext?: boolean;
  readonly fallbackHeader?: string;
  /** Wraps the summary text (model or fallback) into the summary message's text. */
  readonly formatSummary?: (summary: string) => string;
  /** Token counter for trimming the transcript (default: o200k). */
  readonly countTokens?: (text: string) => number;
  readonly persistEpoch: PersistEpoch;
}

export interface CompactionResult {
  readonly epoch: number;
  readonly previousEpoch: number;
  readonly reason: "auto" | "manual";
  readonly trigger: CompactionTrigger;
  readonly summary: SummaryMessage;
  readonly replacement: readonly CanonicalMessage[];
  /** Set when the summariser failed and the deterministic fallback summary was used. */
  readonly fallback: LoopError | undefined;
  readonly usage: Usage | undefined;
}

async function summarize(
  options: CompactorConfig & CompactionRequest,
  compactable: readonly CanonicalMessage[],
): Promise<{ text: string; fallback: LoopError | undefined; usage: Usage | undefined }> {
  const draft = emptyDraft();
  try {
    const request = buildSummarizerRequest({
      conversationId: options.conversationId,
      cacheScope: options.cacheScope,
      model: options.model,
      instructions: options.instructions,
      messages: compactable,
      ...(options.finalUserText === undefined ? {} : { finalUserText: options.finalUserText }),
      ...(options.maxInputTokens === undefined ? {} : { maxInputTokens: options.maxInputTokens }),
      ...(options.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.countTokens === undefined ? {} : { countTokens: options.countTokens }),
    });
    await collectStream({
      provider: options.provider,
      request,
      signal: options.signal,
      draft,
      sink: () => undefined, // the summariser's text is not shown to the client
    });
    if (draft.text.trim() === "") throw new Error("the summariser returned no text");
    return { text: draft.text.trim(), fallback: undefined, usage: draft.usage };
  } catch (error) {
    if (RunCancelledError.isInstance(error) || options.signal?.aborted) throw error;
    const text = fallbackSummary({
      messages: compactable,
      ...(options.fallbackHeader === undefined ? {} : { header: options.fallbackHeader }),
    });
    return { text, fallback: describeLoopError(error), usage: draft.usage };
  }
}

/**
 * Compacts `history`: summarises the compactable part with the provider (or the deterministic
 * fallback when that fails), builds the new epoch as exactly [latest request context] +
 * [summary] + [current initial messages], validates it, persists it through `persistEpoch` and
 * only then switches the in-memory log with `history.startEpoch`. Cancellation throws
 * `RunCancelledError` and changes nothing.
 */
export async function compactHistory(
  options: CompactorConfig & CompactionRequest,
): Promise<CompactionResult> {
  const { history } = options;
  const partition = partitionHistory({
    messages: history.messages,
    current: options.current,
    ...(options.keepRequestContext === undefined
      ? {}
      : { keepRequestContext: options.keepRequestContext }),
  });
  const { text, fallback, usage } = await summarize(options, partition.compactable);
  const previousEpoch = history.epoch;
  const summary = createSummaryMessage({
    summarizedEpoch: previousEpoch,
    text: options.formatSummary ? options.formatSummary(text) : text,
  });
  const replacement = compactionReplacement({ partition, summary });
  // Validate before persisting: a store must never hold an epoch the log would reject.
  const next = history.checkEpoch(replacement);
  const validated = next.appended;
  if (options.signal?.aborted) throw new RunCancelledError({ cause: options.signal.reason });
  await options.persistEpoch({
    epoch: previousEpoch + 1,
    previousEpoch,
    reason: options.reason,
    summary: validated[replacement.indexOf(summary)] as SummaryMessage,
    messages: validated,
    digests: next.digests,
    headDigest: next.headDigest,
  });
  const switched = history.epoch === previousEpoch + 1 && history.headDigest === next.headDigest;
  // The validated copies carry their digests: switching hashes nothing.
  if (!switched) history.startEpoch(validated);
  return {
    epoch: history.epoch,
    previousEpoch,
    reason: options.reason,
    trigger: options.trigger,
    summary: history.get(summary.id) as SummaryMessage,
    replacement: history.messages,
    fallback,
    usage,
  };
}

/** Binds a compactor's configuration, giving the model loop's `compact` port. */
export function createCompactor(
  config: CompactorConfig,
): (request: CompactionRequest) => Promise<CompactionResult> {
  return (request) => compactHistory({ ...config, ...request });
}
