import type { ModelAssistantMessage, Warning } from "@cursor/run";
import type { OpenAIChatAssistantMessage, OpenAIChatToolCall } from "./openai-chat-api.js";
import { openAIChatProviderId, openAIChatReplaySchema } from "./openai-chat-api.js";
import { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";

export interface ConvertAssistantMessageInput {
  readonly message: ModelAssistantMessage;
  /** Where the message sits in the request, for warnings. */
  readonly path: string;
  readonly replayReasoningContent: boolean;
}

/**
 * One assistant message: `content` (null when the turn only calls tools, as the API expects),
 * `reasoning_content` when replay is enabled and this provider left a replay entry, and the tool
 * calls in index order with their arguments exactly as the model produced them. The canonical
 * `reasoning` text is never sent: only state that came from this provider kind is replayed.
 */
export function convertOpenAIChatAssistantMessage({
  message,
  path,
  replayReasoningContent,
}: ConvertAssistantMessageInput): { message: OpenAIChatAssistantMessage; warnings: Warning[] } {
  const warnings: Warning[] = [];
  const hasToolCalls = message.toolCalls.length > 0;
  const converted: OpenAIChatAssistantMessage = {
    role: "assistant",
    content: message.text === "" && hasToolCalls ? null : message.text,
  };
  if (replayReasoningContent) {
    const reasoningContent = replayedReasoningContent({ message, path, warnings });
    if (reasoningContent !== undefined) converted.reasoning_content = reasoningContent;
  }
  if (hasToolCalls) {
    converted.tool_calls = message.toolCalls.map((call): OpenAIChatToolCall => ({
      id: toOpenAIChatToolCallId(call.callId),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return { message: converted, warnings };
}

function replayedReasoningContent({
  message,
  path,
  warnings,
}: {
  message: ModelAssistantMessage;
  path: string;
  warnings: Warning[];
}): string | undefined {
  const entry = message.replay[openAIChatProviderId];
  if (entry === undefined) return undefined;
  const parsed = openAIChatReplaySchema.safeParse(entry);
  if (!parsed.success) {
    warnings.push({
      type: "dropped",
      message: `the ${openAIChatProviderId} replay entry is not {reasoningContent: string}; reasoning not replayed`,
      path: `${path}.replay.${openAIChatProviderId}`,
    });
    return undefined;
  }
  return parsed.data.reasoningContent === "" ? undefined : parsed.data.reasoningContent;
}
