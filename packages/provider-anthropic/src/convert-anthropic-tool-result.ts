import type { ModelToolMessage, Warning } from "@cursor/run";
import type {
  AnthropicImageBlock,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
} from "./anthropic-api.js";
import { isSendableText } from "./anthropic-sendable-text.js";
import { convertAnthropicImage } from "./convert-anthropic-image.js";
import { toAnthropicToolCallId } from "./anthropic-tool-call-id.js";

/**
 * A tool message as a `tool_result` block: the text (unless blank: the API refuses empty and
 * whitespace-only text blocks, and a blank result says nothing) then the image, `is_error` always present so every result has the same shape.
 * The id goes through the same mapping as the `tool_use` it answers.
 */
export function convertAnthropicToolResult({
  message,
  path,
}: {
  message: ModelToolMessage;
  path: string;
}): { block: AnthropicToolResultBlock; warnings: Warning[] } {
  const content: Array<AnthropicTextBlock | AnthropicImageBlock> = [];
  const warnings: Warning[] = [];
  if (isSendableText(message.content)) content.push({ type: "text", text: message.content });
  if (message.image !== undefined) {
    const { block, warning } = convertAnthropicImage({
      image: message.image,
      path: `${path}.image`,
    });
    content.push(block);
    if (warning !== undefined) warnings.push(warning);
  }
  return {
    block: {
      type: "tool_result",
      tool_use_id: toAnthropicToolCallId(message.callId),
      ...(content.length === 0 ? {} : { content }),
      is_error: message.isError,
    },
    warnings,
  };
}
