import type { ModelMessage, Warning } from "@cursor/run";
import { InvalidHistoryError, deepFreeze, SequenceMemo } from "@cursor/run";
import type { OpenAIChatMessage, OpenAIChatUserContentPart } from "./openai-chat-api.js";
import { convertOpenAIChatAssistantMessage } from "./convert-openai-chat-assistant-message.js";
import {
  convertOpenAIChatToolMessage,
  roundImageMessage,
} from "./convert-openai-chat-tool-messages.js";
import { convertOpenAIChatUserMessage } from "./convert-openai-chat-user-message.js";

export type OpenAIChatSystemRole = "system" | "developer";

export interface ConvertToOpenAIChatInputOptions {
  readonly instructions: string;
  readonly messages: readonly ModelMessage[];
  readonly systemRole: OpenAIChatSystemRole;
  readonly replayReasoningContent: boolean;
}

/** A message whose conversion warned or carries a tool image: those are held with it. */
class ConvertedWithExtras {
  constructor(
    readonly message: OpenAIChatMessage,
    readonly warnings: readonly Warning[],
    readonly imageParts: readonly OpenAIChatUserContentPart[],
  ) {}
}

type HeldConversion = OpenAIChatMessage | ConvertedWithExtras;

// Each history message becomes one wire message that depends only on that (frozen) message, its
// index (warnings name it) and the reasoning setting, so it is converted once and shared, frozen,
// by every later body: a call converts only what the history added since the previous one. The
// memo lives as long as the conversation's head, so it is held at the least heap: per
// conversation (`SequenceMemo`: two pointers per message), the wire message itself unless it
// warned or has a tool image; one memo per reasoning setting (a value may depend on its message
// and index only).
const memos = {
  replay: new SequenceMemo<ModelMessage, HeldConversion>(),
  plain: new SequenceMemo<ModelMessage, HeldConversion>(),
};

function convertMessage({
  message,
  index,
  replayReasoningContent,
}: {
  message: ModelMessage;
  index: number;
  replayReasoningContent: boolean;
}): HeldConversion {
  switch (message.role) {
    case "user":
      return deepFreeze(convertOpenAIChatUserMessage(message));
    case "assistant": {
      const made = convertOpenAIChatAssistantMessage({
        message,
        path: `messages[${index}]`,
        replayReasoningContent,
      });
      const wire = deepFreeze(made.message);
      return made.warnings.length === 0 ? wire : new ConvertedWithExtras(wire, made.warnings, []);
    }
    case "tool": {
      const made = convertOpenAIChatToolMessage({ message, index });
      const wire = deepFreeze(made.message);
      return made.imageParts.length === 0 && made.warnings.length === 0
        ? wire
        : new ConvertedWithExtras(wire, made.warnings, deepFreeze([...made.imageParts]));
    }
    default: {
      const exhaustive: never = message;
      throw new InvalidHistoryError({
        message: `unknown model message ${JSON.stringify(exhaustive)}`,
      });
    }
  }
}

/**
 * The Chat `messages` list: the instructions as one system (or developer) message, then the
 * history in order. Each wire message depends only on its own history message, and a tool
 * round's image message (the images of its results, after its last tool message) only on its
 * complete round, so the list for turn N is a prefix of turn N+1's. Wire messages are frozen and
 * shared between calls.
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
  const memo = replayReasoningContent ? memos.replay : memos.plain;
  const held = memo.map(messages, (message, index) =>
    convertMessage({ message, index, replayReasoningContent }),
  );
  // The open tool round's images: sent after its last tool message, before the next message.
  let roundImages: OpenAIChatUserContentPart[] = [];
  const closeRound = () => {
    const imageMessage = roundImageMessage(roundImages);
    if (imageMessage !== undefined) chatMessages.push(deepFreeze(imageMessage));
    roundImages = [];
  };
  for (let index = 0; index < held.length; index += 1) {
    if (messages[index]!.role !== "tool" && roundImages.length > 0) closeRound();
    const value = held[index]!;
    if (!(value instanceof ConvertedWithExtras)) {
      chatMessages.push(value);
      continue;
    }
    chatMessages.push(value.message);
    for (const warning of value.warnings) warnings.push(warning);
    for (const part of value.imageParts) roundImages.push(part);
  }
  closeRound();
  return { messages: chatMessages, warnings };
}
