import { deepFreeze, holdItems, pushHeldItems, SequenceMemo } from "@cursor/run";
import type { HeldItems, ModelMessage, Warning } from "@cursor/run";
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

/** A message whose conversion warned: its warnings (which name its index) are held with it. */
class ConvertedWithWarnings {
  constructor(
    readonly input: HeldItems<OpenAIResponsesInputItem>,
    readonly warnings: readonly Warning[],
  ) {}
}

type HeldConversion = HeldItems<OpenAIResponsesInputItem> | ConvertedWithWarnings;

// A message's items depend on that (frozen) message only, and its warnings on its index too (the
// index names it in them), so they are converted once and shared, frozen, by every later body: a
// call converts only the messages the history added since the previous one, and the items of its
// prefix are the very objects the previous body held (which lets a caller skip work on them by
// identity). The memo lives as long as the conversation's head, so it is held at the least heap:
// per conversation (`SequenceMemo`: two pointers per message), the items without a wrapper
// (`holdItems`), a wrapper only for a message that warned.
const convertedMessages = new SequenceMemo<ModelMessage, HeldConversion>();

/** What the memo holds for `messages[index]` (tests: its form is what a conversation pays). */
export function heldConversionOf(
  messages: readonly ModelMessage[],
  index: number,
): HeldConversion | undefined {
  return convertedMessages.held(messages, index);
}

function convert(message: ModelMessage, index: number): HeldConversion {
  const { input, warnings } = convertMessage({ message, path: `messages[${index}]` });
  const items = holdItems(deepFreeze(input));
  return warnings.length === 0 ? items : new ConvertedWithWarnings(items, warnings);
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
  for (const converted of convertedMessages.map(messages, convert)) {
    if (converted instanceof ConvertedWithWarnings) {
      pushHeldItems(input, converted.input);
      for (const warning of converted.warnings) warnings.push(warning);
    } else {
      pushHeldItems(input, converted);
    }
  }
  return { input, warnings };
}
