import { deepFreeze, holdItems, pushHeldItems } from "@cursor/run";
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

/** A message whose conversion warned: its warnings name its index, so they are held with it. */
class ConvertedWithWarnings {
  constructor(
    readonly index: number,
    readonly input: HeldItems<OpenAIResponsesInputItem>,
    readonly warnings: readonly Warning[],
  ) {}
}

type HeldConversion = HeldItems<OpenAIResponsesInputItem> | ConvertedWithWarnings;

// A message's items depend on that (frozen) message only, and its warnings on its index too (the
// index names it in them), so they are converted once and shared, frozen, by every later body: a
// call converts only the messages the history added since the previous one, and the items of its
// prefix are the very objects the previous body held (which lets a caller skip work on them by
// identity). An entry lives as long as the conversation's head, one per message, so it is held
// at the least heap: the items without a wrapper (`holdItems`), a wrapper only with warnings.
const convertedMessages = new WeakMap<ModelMessage, HeldConversion>();

function convertOnce(message: ModelMessage, index: number): HeldConversion {
  const cached = convertedMessages.get(message);
  if (
    cached !== undefined &&
    (!(cached instanceof ConvertedWithWarnings) || cached.index === index)
  ) {
    return cached;
  }
  const { input, warnings } = convertMessage({ message, path: `messages[${index}]` });
  const items = holdItems(deepFreeze(input));
  const converted =
    warnings.length === 0 ? items : new ConvertedWithWarnings(index, items, warnings);
  // Only a frozen message is known never to change under its cached items.
  if (Object.isFrozen(message)) convertedMessages.set(message, converted);
  return converted;
}

/** What the memo holds for `message` (tests: its form is what an open conversation pays). */
export function heldConversionOf(message: ModelMessage): HeldConversion | undefined {
  return convertedMessages.get(message);
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
    if (converted instanceof ConvertedWithWarnings) {
      pushHeldItems(input, converted.input);
      for (const warning of converted.warnings) warnings.push(warning);
    } else {
      pushHeldItems(input, converted);
    }
  });
  return { input, warnings };
}
