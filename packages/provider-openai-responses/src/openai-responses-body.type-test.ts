// Compile-time only (checked by `tsc --noEmit`, never run): every body this package builds is a
// valid streaming request for the official SDK, so a wire-type drift fails the typecheck.
import type { ResponseCreateParamsStreaming } from "openai/resources/responses/responses";
import type { OpenAIResponsesBody, OpenAIResponsesInputItem } from "./openai-responses-api.js";

type Assert<T extends true> = T;
export type BodyIsStreamingParams = Assert<
  OpenAIResponsesBody extends ResponseCreateParamsStreaming ? true : false
>;
type SdkInputItem =
  NonNullable<ResponseCreateParamsStreaming["input"]> extends string | (infer Item)[]
    ? Item
    : never;
export type InputItemsAreSdkItems = Assert<
  OpenAIResponsesInputItem extends SdkInputItem ? true : false
>;

export const fullBody = {
  model: "gpt-5",
  instructions: "You are a coding agent.",
  tools: [
    {
      type: "function",
      name: "read_file",
      description: "Reads a file.",
      parameters: { type: "object", properties: {}, required: [], additionalProperties: false },
      strict: true,
    },
  ],
  tool_choice: {
    type: "allowed_tools",
    mode: "auto",
    tools: [{ type: "function", name: "read_file" }],
  },
  input: [
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "hi" },
        { type: "input_image", image_url: "data:image/png;base64,AA==", detail: "auto" },
      ],
    },
    {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "s" }],
      encrypted_content: "e",
    },
    { type: "message", role: "assistant", content: "hello", phase: "commentary" },
    { type: "message", role: "assistant", content: "done", phase: "final_answer" },
    { type: "function_call", call_id: "call_1", name: "read_file", arguments: "{}" },
    {
      type: "function_call_output",
      call_id: "call_1",
      output: [{ type: "input_image", image_url: "data:image/png;base64,AA==", detail: "auto" }],
    },
  ],
  reasoning: { effort: "medium", summary: "auto" },
  max_output_tokens: 1024,
  store: false,
  include: ["reasoning.encrypted_content"],
  stream: true,
  prompt_cache_key: "conv_0",
  prompt_cache_retention: "24h",
} satisfies OpenAIResponsesBody satisfies ResponseCreateParamsStreaming;

// The other caching setting (never together with `prompt_cache_retention`), GPT-5.6 and later.
export const cacheOptionsBody = {
  model: "gpt-5.6",
  instructions: "You are a coding agent.",
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
  store: false,
  include: ["reasoning.encrypted_content"],
  stream: true,
  prompt_cache_key: "conv_0",
  prompt_cache_options: { mode: "implicit", ttl: "30m" },
} satisfies OpenAIResponsesBody satisfies ResponseCreateParamsStreaming;
