// Compile-time only (checked by `tsc --noEmit`, never bundled or run): the body this package
// builds must stay assignable to the official SDK's streaming request type, so an SDK upgrade
// that changes the wire format fails the typecheck instead of a live request.
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { OpenAIChatBody } from "./openai-chat-api.js";

type Assert<T extends true> = T;

export type OpenAIChatBodyIsSdkStreamingParams = Assert<
  OpenAIChatBody extends ChatCompletionCreateParamsStreaming ? true : false
>;

export function asSdkStreamingParams(body: OpenAIChatBody): ChatCompletionCreateParamsStreaming {
  return body;
}

// A full object literal of every field and message kind the package emits, checked against both
// our type and the SDK's, so a misspelt or unknown optional field fails `tsc` (assignability of
// the declared type alone would not catch an excess property). `reasoning_content` is left out:
// it is not an OpenAI field (DeepSeek-style servers only), so the SDK type rightly lacks it.
export const fullBody = {
  model: "gpt-5.1",
  messages: [
    { role: "system", content: "You are a coding agent." },
    { role: "developer", content: "Mode rules." },
    { role: "user", content: "hi" },
    {
      role: "user",
      content: [
        { type: "text", text: "see" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "read_file", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "export {}" },
    { role: "assistant", content: "Done." },
  ],
  tools: [
    {
      type: "function",
      function: {
        name: "read_file",
        description: "Reads a file.",
        parameters: { type: "object", properties: {} },
      },
    },
  ],
  tool_choice: {
    type: "allowed_tools",
    allowed_tools: { mode: "auto", tools: [{ type: "function", function: { name: "read_file" } }] },
  },
  max_completion_tokens: 1024,
  prompt_cache_key: "0123456789abcdef0123456789abcdef",
  prompt_cache_retention: "24h",
  stream: true,
  stream_options: { include_usage: true },
} satisfies OpenAIChatBody satisfies ChatCompletionCreateParamsStreaming;

/** The other caching setting (never with `prompt_cache_retention`), GPT-5.6 and later. */
export const cacheOptionsBody = {
  model: "gpt-5.6",
  messages: [{ role: "user", content: "hi" }],
  tool_choice: "none",
  prompt_cache_key: "0123456789abcdef0123456789abcdef",
  prompt_cache_options: { mode: "implicit", ttl: "30m" },
  stream: true,
  stream_options: { include_usage: true },
} satisfies OpenAIChatBody satisfies ChatCompletionCreateParamsStreaming;
