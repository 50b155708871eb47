import { renderSummaryText, summarizerInstructions } from "@cursor/request";
import { compactHistory } from "@cursor/run";
import type {
  CompactionRequest,
  CompactionResult,
  PersistEpoch,
  ProviderAdapter,
} from "@cursor/run";

export type CompactionReason = CompactionRequest["reason"];

export interface ConversationCompactorOptions {
  /** The conversation's provider adapter: the summary is one more call to it. */
  readonly provider: ProviderAdapter;
  readonly conversationId: string;
  /** See `ModelRequest.cacheScope` (the summariser's request shares the conversation's scope). */
  readonly cacheScope?: string | undefined;
  /** The provider model id the summariser runs on (the conversation's model). */
  readonly model: string;
  /** Persists the new epoch atomically before the history switches to it. */
  readonly persistEpoch: PersistEpoch;
  /** The summariser's input budget (default: `@cursor/run`'s `defaultSummarizerInputTokens`). */
  readonly maxInputTokens?: number;
  readonly countTokens?: (text: string) => number;
}

/**
 * The model loop's `compaction.compact` port for a Cursor conversation, and the gateway's manual
 * compaction: `@cursor/run`'s compactor with `@cursor/request`'s summariser instructions and
 * summary wrapping (`prompt/cursor/summary.md`). The new epoch is exactly:
 * - `auto`: [latest request context, unless the current turn brings its own] + [summary] +
 *   [current initial messages];
 * - `manual`: [summary] + [current initial messages, if any]: the context is summarised too, so
 *   the next user turn finds no request context and projects it again.
 * The summary message is `summary:<epoch summarised>`; a failing summariser falls back to the
 * deterministic summary. The replacement is validated before `persistEpoch`, which runs before
 * the history switches.
 */
export function createConversationCompactor(
  options: ConversationCompactorOptions,
): (request: CompactionRequest) => Promise<CompactionResult> {
  return (request) =>
    compactHistory({
      provider: options.provider,
      conversationId: options.conversationId,
      ...(options.cacheScope === undefined ? {} : { cacheScope: options.cacheScope }),
      model: options.model,
      instructions: summarizerInstructions,
      formatSummary: renderSummaryText,
      keepRequestContext: request.reason === "auto",
      persistEpoch: options.persistEpoch,
      ...(options.maxInputTokens === undefined ? {} : { maxInputTokens: options.maxInputTokens }),
      ...(options.countTokens === undefined ? {} : { countTokens: options.countTokens }),
      ...request,
    });
}
