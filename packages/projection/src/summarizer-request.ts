import { summarizerInstructions } from "@cursor/request";
import { buildSummarizerRequest, partitionHistory } from "@cursor/run";
import type { CanonicalMessage, ModelRequest } from "@cursor/run";
import type { CompactionReason } from "./compaction-replacement.js";
import type { ConversationHead } from "./conversation-head.js";

/**
 * The request that asks the model to summarise what a compaction of `head` replaces: the same
 * split as `compactionReplacement` (the kept request context and the current initial messages
 * are not summarised), @cursor/request's summariser instructions, no tools, and one final user
 * message holding the transcript.
 */
export function summarizerRequest({
  head,
  currentInitialMessages,
  reason,
  model,
  maxInputTokens,
}: {
  head: ConversationHead;
  currentInitialMessages: readonly CanonicalMessage[];
  reason: CompactionReason;
  model: string;
  maxInputTokens?: number | undefined;
}): ModelRequest {
  const { compactable } = partitionHistory({
    messages: head.history.messages,
    current: currentInitialMessages,
    keepRequestContext: reason === "auto",
  });
  return buildSummarizerRequest({
    conversationId: head.conversationId,
    model,
    instructions: summarizerInstructions,
    messages: compactable,
    ...(maxInputTokens === undefined ? {} : { maxInputTokens }),
  });
}
