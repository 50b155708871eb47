import type { ModelUserMessage, Warning } from "@cursor/run";
import type { AnthropicImageBlock, AnthropicTextBlock } from "./anthropic-api.js";
import { isSendableText } from "./anthropic-sendable-text.js";
import { convertAnthropicImage } from "./convert-anthropic-image.js";

/**
 * The content blocks of one user-side message (request context, runtime, summary, user, tail).
 * Every source renders the same way — its text verbatim — because the layers above already
 * framed it; the message's position in the merged user turn is what keeps it apart. Empty or
 * whitespace-only text parts are dropped (the API refuses such blocks) with a warning.
 */
export function convertAnthropicUserContent({
  message,
  path,
}: {
  message: ModelUserMessage;
  path: string;
}): { blocks: Array<AnthropicTextBlock | AnthropicImageBlock>; warnings: Warning[] } {
  const blocks: Array<AnthropicTextBlock | AnthropicImageBlock> = [];
  const warnings: Warning[] = [];
  message.content.forEach((part, index) => {
    const partPath = `${path}.content[${index}]`;
    switch (part.type) {
      case "text":
        if (!isSendableText(part.text)) {
          warnings.push({ type: "dropped", message: "blank text part dropped", path: partPath });
        } else {
          blocks.push({ type: "text", text: part.text });
        }
        break;
      case "image": {
        const { block, warning } = convertAnthropicImage({ image: part, path: partPath });
        blocks.push(block);
        if (warning !== undefined) warnings.push(warning);
        break;
      }
      default: {
        const exhaustive: never = part;
        throw new TypeError(`unknown content part ${JSON.stringify(exhaustive)}`);
      }
    }
  });
  return { blocks, warnings };
}
