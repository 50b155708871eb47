// Compile-time only (checked by `tsc --noEmit`, never run): the body this package builds must
// be a valid streaming request for the official SDK, so a wire-type drift fails the typecheck.
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";
import type { AnthropicBody } from "./anthropic-api.js";

type IsAssignable<From, To> = [From] extends [To] ? true : false;

export const anthropicBodyIsStreamingParams: IsAssignable<
  AnthropicBody,
  MessageCreateParamsStreaming
> = true;

// A full object literal holding every field and block kind the package emits: checked against
// both our type and the SDK's, so a misspelt or unknown optional field fails `tsc` (the
// assignability check above alone would not catch an excess property).
export const fullBody = {
  model: "claude-sonnet-4-6",
  max_tokens: 8192,
  thinking: { type: "enabled", budget_tokens: 2048 },
  system: [
    {
      type: "text",
      text: "You are a coding agent.",
      cache_control: { type: "ephemeral", ttl: "1h" },
    },
  ],
  tools: [
    {
      name: "read_file",
      description: "Reads a file.",
      input_schema: { type: "object", properties: { path: { type: "string" } } },
      cache_control: { type: "ephemeral", ttl: "1h" },
    },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "hi" },
        {
          type: "image",
          source: { type: "base64", media_type: "image/png", data: "AA==" },
          cache_control: { type: "ephemeral" },
        },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "text", text: "Reading.", cache_control: { type: "ephemeral", ttl: "5m" } },
        {
          type: "tool_use",
          id: "toolu_1",
          name: "read_file",
          input: { path: "a.ts" },
          cache_control: { type: "ephemeral" },
        },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_1",
          content: [
            { type: "text", text: "export {}" },
            { type: "image", source: { type: "base64", media_type: "image/webp", data: "AA==" } },
          ],
          is_error: false,
          cache_control: { type: "ephemeral" },
        },
        { type: "text", text: "Continue.", cache_control: { type: "ephemeral" } },
      ],
    },
  ],
  stream: true,
} satisfies AnthropicBody satisfies MessageCreateParamsStreaming;
