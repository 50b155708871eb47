import type { ModelMessage, Warning } from "@cursor/run";
import { InvalidHistoryError, deepFreeze } from "@cursor/run";
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

interface Converted {
  /** The history messages it was made from (a tool round: all of them) and the first's index. */
  readonly from: readonly ModelMessage[];
  readonly index: number;
  readonly replayReasoningContent: boolean;
  readonly messages: readonly OpenAIChatMessage[];
  readonly warnings: readonly Warning[];
}

// Wire messages depend only on their (frozen) history messages, their index (warnings name it)
// and the reasoning setting, so each is converted once and shared, frozen, by every later body:
// a call converts only what the history added since the previous one. Keyed by the first
// history message it was made from.
const converted = new WeakMap<ModelMessage, Converted>();

function convertOnce({
  from,
  index,
  replayReasoningContent,
  convert,
}: {
  from: readonly ModelMessage[];
  index: number;
  replayReasoningContent: boolean;
  convert: () => { messages: OpenAIChatMessage[]; warnings: Warning[] };
}): Converted {
  const key = from[0]!;
  const cached = converted.get(key);
  if (
    cached !== undefined &&
    cached.index === index &&
    cached.replayReasoningContent === replayReasoningContent &&
    cached.from.length === from.length &&
    cached.from.every((message, at) => message === from[at])
  ) {
    return cached;
  }
  const made = convert();
  const entry: Converted = {
    from: [...from],
    index,
    replayReasoningContent,
    messages: deepFreeze(made.messages),
    warnings: made.warnings,
  };
  // Only frozen messages are known never to change under their cached wire form.
  if (from.every((message) => Object.isFrozen(message))) converted.set(key, entry);
  return entry;
}

/**
 * The Chat `messages` list: the instructions as one system (or developer) message, then the
 * history in order. Each wire message depends only on its own history message (a tool round's
 * image message on its complete round), so the list for turn N is a prefix of turn N+1's. Wire
 * messages are frozen and shared between calls.
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
  const add = (entry: Converted) => {
    for (const message of entry.messages) chatMessages.push(message);
    for (const warning of entry.warnings) warnings.push(warning);
  };
  let round: IndexedToolMessage[] = [];
  const flushRound = () => {
    if (round.length === 0) return;
    const members = round;
    add(
      convertOnce({
        from: members.map(({ message }) => message),
        index: members[0]!.index,
        replayReasoningContent,
        convert: () => convertOpenAIChatToolMessages(members),
      }),
    );
    round = [];
  };
  messages.forEach((message, index) => {
    if (message.role !== "tool") flushRound();
    switch (message.role) {
      case "user":
        add(
          convertOnce({
            from: [message],
            index,
            replayReasoningContent,
            convert: () => ({ messages: [convertOpenAIChatUserMessage(message)], warnings: [] }),
          }),
        );
        break;
      case "assistant":
        add(
          convertOnce({
            from: [message],
            index,
            replayReasoningContent,
            convert: () => {
              const made = convertOpenAIChatAssistantMessage({
                message,
                path: `messages[${index}]`,
                replayReasoningContent,
              });
              return { messages: [made.message], warnings: [...made.warnings] };
            },
          }),
        );
        break;
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
