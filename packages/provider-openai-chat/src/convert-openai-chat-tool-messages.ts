import type { ModelToolMessage, Warning } from "@cursor/run";
import type {
  OpenAIChatMessage,
  OpenAIChatToolMessage,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
} from "./openai-chat-api.js";
import { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";
import { toChatImagePart } from "./convert-openai-chat-user-message.js";

export interface IndexedToolMessage {
  readonly message: ModelToolMessage;
  /** Index in `ModelRequest.messages`, for warning paths. */
  readonly index: number;
}

/**
 * One tool round's results: a `role: "tool"` message per result, content verbatim (Chat has no
 * error flag; the tool's own text says what failed). Chat tool messages cannot carry images, and
 * the API refuses anything but tool messages between an assistant's `tool_calls` and its last
 * result, so the round's images follow all of its tool messages in one user message: per image,
 * a text part naming the call, then the image. The model loop only calls the model once a round
 * is complete, so this message sits at the same place on every later turn (prefix-stable).
 */
export function convertOpenAIChatToolMessages(round: readonly IndexedToolMessage[]): {
  messages: OpenAIChatMessage[];
  warnings: Warning[];
} {
  const messages: OpenAIChatMessage[] = [];
  const warnings: Warning[] = [];
  const imageParts: OpenAIChatUserContentPart[] = [];
  for (const { message, index } of round) {
    const toolCallId = toOpenAIChatToolCallId(message.callId);
    const toolMessage: OpenAIChatToolMessage = {
      role: "tool",
      tool_call_id: toolCallId,
      content: message.content,
    };
    messages.push(toolMessage);
    if (message.image === undefined) continue;
    imageParts.push(
      { type: "text", text: `Image returned by tool call ${toolCallId} (${message.name}):` },
      toChatImagePart(message.image),
    );
    warnings.push({
      type: "unsupported",
      message: `Chat tool messages cannot carry images; the image of tool call ${toolCallId} is sent in a user message after the round's tool results`,
      path: `messages[${index}].image`,
    });
  }
  if (imageParts.length > 0) {
    const imageMessage: OpenAIChatUserMessage = { role: "user", content: imageParts };
    messages.push(imageMessage);
  }
  return { messages, warnings };
}
