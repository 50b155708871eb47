import type { ContentPart, ImagePart } from "@cursor/run";
import type {
  OpenAIResponsesInputContentPart,
  OpenAIResponsesInputImage,
} from "./openai-responses-api.js";

/** Images go inline as data URLs: the bytes come from the canonical part and nothing else. */
export function convertImagePart(part: ImagePart): OpenAIResponsesInputImage {
  return {
    type: "input_image",
    image_url: `data:${part.mimeType};base64,${part.data}`,
    detail: "auto",
  };
}

/** One canonical content part as a Responses input content part. */
export function convertContentPart(part: ContentPart): OpenAIResponsesInputContentPart {
  switch (part.type) {
    case "text":
      return { type: "input_text", text: part.text };
    case "image":
      return convertImagePart(part);
    default: {
      const exhaustive: never = part;
      throw new Error(`unknown content part ${JSON.stringify(exhaustive)}`);
    }
  }
}
