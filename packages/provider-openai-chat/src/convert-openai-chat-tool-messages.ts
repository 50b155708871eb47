import type { ModelToolMessage, Warning } from "@cursor/run";
import type {
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

/** One tool result: its `role: "tool"` message, and its image (if any) for the round's image message. */
export interface ConvertedOpenAIChatToolMessage {
  readonly message: OpenAIChatToolMessage;
  /** A text part naming the call, then the image: what the round's image message carries. */
  readonly imageParts: readonly OpenAIChatUserContentPart[];
  readonly warnings: readonly Warning[];
}

/**
 * One result of a tool round: a `role: "tool"` message, content verbatim (Chat has no error
 * flag; the tool's own text says what failed). Chat tool messages cannot carry images: an image
 * comes back as parts for the user message that follows the round (see below).
 */
export function convertOpenAIChatToolMessage({
  message,
  index,
}: IndexedToolMessage): ConvertedOpenAIChatToolMessage {
  const toolCallId = toOpenAIChatToolCallId(message.callId);
  const toolMessage: OpenAIChatToolMessage = {
    role: "tool",
    tool_call_id: toolCallId,
    content: message.content,
  };
  if (message.image === undefined) return { message: toolMessage, imageParts: [], warnings: [] };
  return {
    message: toolMessage,
    imageParts: [
      { type: "text", text: `Image returned by tool call ${toolCallId} (${message.name}):` },
      toChatImagePart(message.image),
    ],
    warnings: [
      {
        type: "unsupported",
        message: `Chat tool messages cannot carry images; the image of tool call ${toolCallId} is sent in a user message after the round's tool results`,
        path: `messages[${index}].image`,
      },
    ],
  };
}

/**
 * The API refuses anything but tool messages between an assistant's `tool_calls` and its last
 * result, so a round's images follow all of its tool messages in one user message: per image, a
 * text part naming the call (`convertOpenAIChatToolMessage`), then the image. The model loop only
 * calls the model once a round is complete, so this message sits at the same place on every later
 * turn (prefix-stable).
 */
export function roundImageMessage(
  imageParts: readonly OpenAIChatUserContentPart[],
): OpenAIChatUserMessage | undefined {
  return imageParts.length === 0 ? undefined : { role: "user", content: [...imageParts] };
}
