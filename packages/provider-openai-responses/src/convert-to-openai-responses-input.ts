import { deepFreeze } from "@cursor/run";
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

interface ConvertedMessage {
  readonly index: number;
  readonly input: readonly OpenAIResponsesInputItem[];
  readonly warnings: readonly Warning[];
}

// A message's items depend on that (frozen) message and its index only (the index names it in
// warnings), so they are converted once and shared, frozen, by every later body: a call converts
// only the messages the history added since the previous one, and the items of its prefix are the
// very objects the previous body held (which lets a caller skip work on them by identity).
const convertedMessages = new WeakMap<ModelMessage, ConvertedMessage>();

function convertOnce(message: ModelMessage, index: number): ConvertedMessage {
  const cached = convertedMessages.get(message);
  if (cached !== undefined && cached.index === index) return cached;
  const { input, warnings } = convertMessage({ message, path: `messages[${index}]` });
  const converted: ConvertedMessage = { index, input: deepFreeze(input), warnings };
  // Only a frozen message is known never to change under its cached items.
  if (Object.isFrozen(message)) convertedMessages.set(message, converted);
  return converted;
}

/**
 * The history as Responses `input` items. Each message converts on its own (its items depend
 * on that message only), and items are concatenated in message order, so the input of turn N
 * is an exact prefix of the input of turn N+1 whenever the history only grew. The items are
 * frozen and shared between calls.
 */
export function convertToOpenAIResponsesInput(messages: readonly ModelMessage[]): {
  input: OpenAIResponsesInputItem[];
  warnings: Warning[];
} {
  const input: OpenAIResponsesInputItem[] = [];
  const warnings: Warning[] = [];
  messages.forEach((message, index) => {
    const converted = convertOnce(message, index);
    for (const item of converted.input) input.push(item);
    for (const warning of converted.warnings) warnings.push(warning);
  });
  return { input, warnings };
}
