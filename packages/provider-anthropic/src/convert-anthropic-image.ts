import type { ImagePart, Warning } from "@cursor/run";
import { anthropicImageMediaTypes } from "./anthropic-api.js";
import type {
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicTextBlock,
} from "./anthropic-api.js";

function isAnthropicImageMediaType(mimeType: string): mimeType is AnthropicImageMediaType {
  return (anthropicImageMediaTypes as readonly string[]).includes(mimeType);
}

/**
 * A canonical image as a base64 `image` block. A media type the API does not accept becomes a
 * short text placeholder (with a warning) instead of disappearing, so the message never turns
 * empty and the substitution is the same on every turn.
 */
export function convertAnthropicImage({ image, path }: { image: ImagePart; path: string }): {
  block: AnthropicImageBlock | AnthropicTextBlock;
  warning?: Warning;
} {
  if (isAnthropicImageMediaType(image.mimeType)) {
    return {
      block: {
        type: "image",
        source: { type: "base64", media_type: image.mimeType, data: image.data },
      },
    };
  }
  return {
    block: { type: "text", text: `[image omitted: ${image.mimeType} is not supported]` },
    warning: {
      type: "unsupported",
      message: `image media type ${image.mimeType} is not supported by Anthropic; replaced by a text note`,
      path,
    },
  };
}
