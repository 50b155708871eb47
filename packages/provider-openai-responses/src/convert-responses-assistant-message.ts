import type { ModelAssistantMessage, Warning } from "@cursor/run";
import type { ResponsesInputItem, ResponsesReasoningItem } from "./responses-api.js";
import { toResponsesCallId } from "./responses-call-id.js";
import { responsesProviderId } from "./responses-provider-id.js";
import { readResponsesReplayState } from "./responses-replay-state.js";

function replayedReasoning({
  message,
  path,
  warnings,
}: {
  message: ModelAssistantMessage;
  path: string;
  warnings: Warning[];
}): ResponsesReasoningItem[] {
  // Only this provider's entry: another provider's signatures or reasoning text mean nothing here.
  const state = message.replay[responsesProviderId];
  if (state === undefined) return [];
  const read = readResponsesReplayState(state);
  if (!read.ok) {
    warnings.push({
      type: "dropped",
      message: `replay state is not openai-responses reasoning state (${read.reason})`,
      path: `${path}.replay.${responsesProviderId}`,
    });
    return [];
  }
  return read.items;
}

/**
 * An assistant turn in output order: its reasoning items (verbatim, so the model sees its own
 * earlier reasoning), then its text as an assistant message, then one `function_call` per tool
 * call in index order with the arguments exactly as produced. The plain `reasoning` text is a
 * summary and has no wire form; only the encrypted items carry reasoning across turns.
 */
export function convertAssistantMessage({
  message,
  path,
}: {
  message: ModelAssistantMessage;
  path: string;
}): { input: ResponsesInputItem[]; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const reasoning = replayedReasoning({ message, path, warnings });
  const input: ResponsesInputItem[] = [];
  if (message.text !== "") {
    input.push({ type: "message", role: "assistant", content: message.text });
  }
  for (const call of message.toolCalls) {
    input.push({
      type: "function_call",
      call_id: toResponsesCallId(call.callId),
      name: call.name,
      arguments: call.arguments,
    });
  }
  if (input.length === 0) {
    // The API refuses a reasoning item with no item after it, and an empty message is refused
    // too, so an empty turn is left out as a whole.
    warnings.push({
      type: "dropped",
      message: "assistant message without text or tool calls has no wire form",
      path,
    });
    return { input: [], warnings };
  }
  return { input: [...reasoning, ...input], warnings };
}
