import type { ModelMessage, Warning } from "@cursor/run";
import { InvalidHistoryError } from "@cursor/run";
import type { OpenAIChatMessage } from "./openai-chat-api.js";
import { convertOpenAIChatAssistantMessage } from "./convert-openai-chat-assistant-message.js";
import type { IndexedToolMessage } from "./convert-openai-chat-tool-messages.js";
import { convertOpenAIChatToolMessages } from "./convert-openai-chat-tool-messages.js";
import { convertOpenAIChatUserMessage } from "./convert-openai-chat-user-message.js";

export type OpenAIChatSystemRole = "system" | "developer";

export interface ConvertToOpenAIChatInputOptions {
  readonly instructions: string;
  readonly messages: readonly ModelMessage[];
  readonly systemRole: OpenAIChatSystemRole;
  readonly replayReasoningContent: boolean;
}

/**
 * The Chat `messages` list: the instructions as one system (or developer) message, then the
 * history in order. Each wire message depends only on its own history message (a tool round's
 * image message on its complete round), so the list for turn N is a prefix of turn N+1's.
 */
export function convertToOpenAIChatInput({
  instructions,
  messages,
  systemRole,
  replayReasoningContent,
}: ConvertToOpenAIChatInputOptions): { messages: OpenAIChatMessage[]; warnings: Warning[] } {
  const chatMessages: OpenAIChatMessage[] = [
    systemRole === "system"
      ? { role: "system", content: instructions }
      : { role: "developer", content: instructions },
  ];
  const warnings: Warning[] = [];
  let round: IndexedToolMessage[] = [];
  const flushRound = () => {
    if (round.length === 0) return;
    const converted = convertOpenAIChatToolMessages(round);
    chatMessages.push(...converted.messages);
    warnings.push(...converted.warnings);
    round = [];
  };
  messages.forEach((message, index) => {
    if (message.role !== "tool") flushRound();
    switch (message.role) {
      case "user":
        chatMessages.push(convertOpenAIChatUserMessage(message));
        break;
      case "assistant": {
        const converted = convertOpenAIChatAssistantMessage({
          message,
          path: `messages[${index}]`,
          replayReasoningContent,
        });
        chatMessages.push(converted.message);
        warnings.push(...converted.warnings);
        break;
      }
      case "tool":
        round.push({ message, index });
        break;
      default: {
        const exhaustive: never = message;
        throw new InvalidHistoryError({
          message: `unknown model message ${JSON.stringify(exhaustive)}`,
        });
      }
    }
  });
  flushRound();
  return { messages: chatMessages, warnings };
}
