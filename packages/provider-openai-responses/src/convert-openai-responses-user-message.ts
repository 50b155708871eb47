import type { ModelUserMessage, Warning } from "@cursor/run";
import { convertContentPart } from "./convert-openai-responses-content-part.js";
import type { OpenAIResponsesUserMessageItem } from "./openai-responses-api.js";

/**
 * Every user-role source (request-context, runtime, summary, user, tail) becomes one `user`
 * message with its parts in order and nothing added. The upper layers already wrap request
 * context, runtime and summary text in their own markup, and a provider-specific wrapper (or a
 * `developer` role) would make the wire form depend on something other than the message itself.
 */
export function convertUserMessage(message: ModelUserMessage): {
  input: OpenAIResponsesUserMessageItem[];
  warnings: Warning[];
} {
  return {
    input: [{ type: "message", role: "user", content: message.content.map(convertContentPart) }],
    warnings: [],
  };
}
