import type { ModelMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { convertToOpenAIResponsesInput } from "./convert-to-openai-responses-input.js";

describe("convertToOpenAIResponsesInput", () => {
  const messages: ModelMessage[] = [
    { role: "user", id: "summary:0", source: "summary", content: [{ type: "text", text: "S" }] },
    {
      role: "assistant",
      id: "assistant:r:0",
      text: "",
      reasoning: "",
      toolCalls: [{ index: 0, callId: "call_1", name: "ls", arguments: "{}" }],
      replay: {},
    },
    {
      role: "tool",
      id: "tool-result:call_1",
      callId: "call_1",
      name: "ls",
      content: "a b",
      isError: false,
    },
    { role: "assistant", id: "assistant:r:1", text: "", reasoning: "", toolCalls: [], replay: {} },
    { role: "user", id: "tail", source: "tail", content: [{ type: "text", text: "Continue." }] },
  ];

  it("concatenates per-message items in message order, with warnings located by index", () => {
    expect(convertToOpenAIResponsesInput(messages)).toEqual({
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "S" }] },
        { type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "a b" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Continue." }] },
      ],
      warnings: [
        {
          type: "dropped",
          message: "assistant message without text or tool calls has no wire form",
          path: "messages[3]",
        },
      ],
    });
  });

  it("converts each message independently, so a longer history extends the input", () => {
    const shorter = convertToOpenAIResponsesInput(messages.slice(0, 3)).input;
    const longer = convertToOpenAIResponsesInput(messages).input;
    expect(longer.slice(0, shorter.length)).toEqual(shorter);
  });
});
