import { CheckpointError, createCheckpointState, hydrateCheckpoint } from "@cursor/checkpoint";
import type { CheckpointState } from "@cursor/checkpoint";
import { createConversationHead } from "./conversation-head.js";
import type { ConversationHead } from "./conversation-head.js";

/**
 * The checkpoint state of a head: the current epoch's messages are the stable roots, the turn
 * records go along, and the latest request context is named so a reader can check it without
 * scanning. Records `promptSpecDigest` (the spec the history was built with).
 */
export function headToCheckpointState(
  head: ConversationHead,
  { promptSpecDigest }: { promptSpecDigest?: string | undefined } = {},
): CheckpointState {
  return createCheckpointState({
    conversationId: head.conversationId,
    history: head.history,
    turns: head.turns,
    latestRequestContextId: head.history.latestRequestContext()?.id,
    promptSpecDigest,
  });
}

/**
 * The head of a (decoded) checkpoint state: the history re-validated message by message with
 * its head digest checked (`hydrateCheckpoint`), so request-context and runtime identities,
 * pending tool calls and dedup all work as before. `lastRunId` is the run of the latest turn.
 * Throws `CheckpointError` when the state is inconsistent.
 */
export function headFromCheckpointState(state: CheckpointState): ConversationHead {
  const hydrated = hydrateCheckpoint(state);
  const latest = hydrated.history.latestRequestContext()?.id;
  if (hydrated.latestRequestContextId !== latest) {
    throw new CheckpointError({
      reason: "invalid-state",
      message: `the checkpoint names ${hydrated.latestRequestContextId ?? "no"} latest request context, its history has ${latest ?? "none"}`,
    });
  }
  return createConversationHead({
    conversationId: hydrated.conversationId,
    history: hydrated.history,
    turns: hydrated.turns,
    lastRunId: hydrated.turns.at(-1)?.runId,
  });
}
