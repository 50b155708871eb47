import { messageIdPrefixes } from "@cursor/run";
import type { AssistantMessage } from "@cursor/run";
import type { ConversationHead } from "./conversation-head.js";

/**
 * Where a run stands in the current epoch:
 * - `open`: the model still has to answer (nothing answered its events yet, or every tool call of
 *   its last step has a result and the model has not continued);
 * - `awaiting-tools`: its last step has tool calls without results;
 * - `completed`: its last step answered without tool calls, a later event superseded it, or its
 *   messages were compacted away.
 */
export type RunProgress = "open" | "awaiting-tools" | "completed";

/** Is `messageId` an assistant step of `runId`? (`assistant:<runId>:<step>`, step in digits) */
export function isAssistantIdOfRun(messageId: string, runId: string): boolean {
  const prefix = `${messageIdPrefixes.assistant}${runId}:`;
  // Run ids may contain ':', so require the rest to be the numeric step: `assistant:r:1:2` is
  // step 2 of run `r:1`, never a step of run `r`.
  return messageId.startsWith(prefix) && /^\d+$/.test(messageId.slice(prefix.length));
}

/**
 * Reads the run's progress from the end of the epoch backwards. Work is proportional to what
 * came after the run's last user-side message, not to the conversation.
 */
export function runProgress({
  head,
  runId,
}: {
  head: ConversationHead;
  runId: string;
}): RunProgress {
  const messages = head.history.messages;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    switch (message.kind) {
      case "tool-result":
        // Results belong to the assistant step before them; keep looking for it.
        continue;
      case "assistant":
        return assistantProgress({ head, runId, message });
      case "request-context":
      case "runtime":
      case "user":
      case "summary":
        // A user-side message at the end: the model has not answered it yet. It is this run's
        // only if one of the run's events put it there.
        return runEventMessageIds(head, runId).has(message.id) ? "open" : "completed";
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message kind ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return "completed";
}

function assistantProgress({
  head,
  runId,
  message,
}: {
  head: ConversationHead;
  runId: string;
  message: AssistantMessage;
}): RunProgress {
  if (!isAssistantIdOfRun(message.id, runId)) return "completed";
  if (message.toolCalls.length === 0) return "completed";
  const pending = new Set(head.history.pendingToolCalls().map((call) => call.callId));
  return message.toolCalls.some((call) => pending.has(call.callId)) ? "awaiting-tools" : "open";
}

function runEventMessageIds(head: ConversationHead, runId: string): Set<string> {
  const ids = new Set<string>();
  for (const turn of head.turns) {
    if (turn.runId === runId) for (const id of turn.messageIds) ids.add(id);
  }
  return ids;
}

/**
 * The run's latest assistant message in the current epoch (its final answer once the run is
 * `completed`), so a retried request can replay it without calling the provider. Scans back
 * only over the run's own steps and tool results.
 */
export function lastAssistantOfRun({
  head,
  runId,
}: {
  head: ConversationHead;
  runId: string;
}): AssistantMessage | undefined {
  const messages = head.history.messages;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i]!;
    if (message.kind === "tool-result") continue;
    if (message.kind === "assistant" && isAssistantIdOfRun(message.id, runId)) return message;
    return undefined;
  }
  return undefined;
}
