import type { ModelToolMessage, Warning } from "@cursor/run";
import { convertImagePart } from "./convert-openai-responses-content-part.js";
import type {
  OpenAIResponsesFunctionCallOutputItem,
  OpenAIResponsesInputContentPart,
} from "./openai-responses-api.js";
import { toOpenAIResponsesToolCallId } from "./openai-responses-tool-call-id.js";

/**
 * A tool result as a `function_call_output`. Text-only results are a plain string; a result with
 * an image is a part list (text first when there is any, then the image), which the API accepts
 * for function outputs. The API has no error flag: `isError` results go as their text, which
 * already says what failed.
 */
export function convertToolMessage(message: ModelToolMessage): {
  input: OpenAIResponsesFunctionCallOutputItem[];
  warnings: Warning[];
} {
  const callId = toOpenAIResponsesToolCallId(message.callId);
  if (message.image === undefined) {
    return {
      input: [{ type: "function_call_output", call_id: callId, output: message.content }],
      warnings: [],
    };
  }
  const output: OpenAIResponsesInputContentPart[] = [];
  if (message.content !== "") output.push({ type: "input_text", text: message.content });
  output.push(convertImagePart(message.image));
  return { input: [{ type: "function_call_output", call_id: callId, output }], warnings: [] };
}
