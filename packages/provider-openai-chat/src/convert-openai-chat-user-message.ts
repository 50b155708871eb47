import type { ContentPart, ImagePart, ModelUserMessage } from "@cursor/run";
import { InvalidHistoryError } from "@cursor/run";
import type {
  OpenAIChatImagePart,
  OpenAIChatUserContentPart,
  OpenAIChatUserMessage,
} from "./openai-chat-api.js";

/** An image as a Chat `image_url` part (a base64 data URL; no `detail`, so the API default). */
export function toChatImagePart(image: ImagePart): OpenAIChatImagePart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function toChatContentPart(part: ContentPart): OpenAIChatUserContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return toChatImagePart(part);
    default: {
      const exhaustive: never = part;
      throw new InvalidHistoryError({
        message: `unknown content part ${JSON.stringify(exhaustive)}`,
      });
    }
  }
}

/**
 * Every user-side source (user, request-context, runtime, summary, tail) becomes one `role:
 * "user"` message with its content unchanged: Chat has no other channel for context that must
 * stay in the history, and keeping the text verbatim keeps each message's bytes fixed across
 * turns. A single text part is sent as a plain string, which every OpenAI-compatible server
 * accepts; anything else as content parts in their original order.
 */
export function convertOpenAIChatUserMessage(message: ModelUserMessage): OpenAIChatUserMessage {
  const [only] = message.content;
  if (message.content.length === 1 && only?.type === "text") {
    return { role: "user", content: only.text };
  }
  return { role: "user", content: message.content.map(toChatContentPart) };
}
