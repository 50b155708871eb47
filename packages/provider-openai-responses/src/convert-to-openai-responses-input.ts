import type { ModelMessage, Warning } from "@cursor/run";
import { convertAssistantMessage } from "./convert-openai-responses-assistant-message.js";
import { convertToolMessage } from "./convert-openai-responses-tool-message.js";
import { convertUserMessage } from "./convert-openai-responses-user-message.js";
import type { OpenAIResponsesInputItem } from "./openai-responses-api.js";

function convertMessage({ message, path }: { message: ModelMessage; path: string }): {
  input: OpenAIResponsesInputItem[];
  warnings: Warning[];
} {
  switch (message.role) {
    case "user":
      return convertUserMessage(message);
    case "assistant":
      return convertAssistantMessage({ message, path });
    case "tool":
      return convertToolMessage(message);
    default: {
      const exhaustive: never = message;
      throw new Error(`unknown model message ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * The history as Responses `input` items. Each message converts on its own (its items depend
 * on that message only), and items are concatenated in message order, so the input of turn N
 * is an exact prefix of the input of turn N+1 whenever the history only grew.
 */
export function convertToOpenAIResponsesInput(messages: readonly ModelMessage[]): {
  input: OpenAIResponsesInputItem[];
  warnings: Warning[];
} {
  const input: OpenAIResponsesInputItem[] = [];
  const warnings: Warning[] = [];
  messages.forEach((message, index) => {
    const converted = convertMessage({ message, path: `messages[${index}]` });
    input.push(...converted.input);
    warnings.push(...converted.warnings);
  });
  return { input, warnings };
}
