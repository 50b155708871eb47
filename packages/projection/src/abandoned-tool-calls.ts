import { createToolResultMessage } from "@cursor/run";
import type { HistoryLog, ToolResultMessage } from "@cursor/run";

/**
 * The fixed text of the result that closes a tool call the client never answered. Fixed (no
 * ids, no time), so two gateways closing the same calls produce byte-equal history.
 */
export const abandonedToolCallText =
  "No result: the client continued the conversation without running this tool call.";

/**
 * Synthetic error results for every call still pending in the epoch, in call order. A new event
 * after a run that ended `awaiting-tools` abandons those calls; closing them keeps every tool
 * round answered, which providers require and `HistoryLog` enforces.
 */
export function closeAbandonedToolCalls(history: HistoryLog): ToolResultMessage[] {
  return history.pendingToolCalls().map((call) =>
    createToolResultMessage({
      callId: call.callId,
      name: call.name,
      content: abandonedToolCallText,
      isError: true,
    }),
  );
}
