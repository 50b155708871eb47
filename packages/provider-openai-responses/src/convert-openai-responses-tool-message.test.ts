import type { ModelToolMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { convertToolMessage } from "./convert-openai-responses-tool-message.js";

function tool(overrides: Partial<ModelToolMessage>): ModelToolMessage {
  return {
    role: "tool",
    id: "tool-result:call_1",
    callId: "call_1",
    name: "read_file",
    content: "file text",
    isError: false,
    ...overrides,
  };
}

describe("convertToolMessage", () => {
  it("sends text results as a string output", () => {
    expect(convertToolMessage(tool({}))).toEqual({
      input: [{ type: "function_call_output", call_id: "call_1", output: "file text" }],
      warnings: [],
    });
  });

  it("sends error results as their text (the API has no error flag)", () => {
    expect(convertToolMessage(tool({ content: "ENOENT", isError: true })).input).toEqual([
      { type: "function_call_output", call_id: "call_1", output: "ENOENT" },
    ]);
  });

  it("sends image results as a part list, text first", () => {
    const image = { type: "image", mimeType: "image/png", data: "iVBO" } as const;
    expect(convertToolMessage(tool({ content: "screenshot", image })).input).toEqual([
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "screenshot" },
          { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" },
        ],
      },
    ]);
    expect(convertToolMessage(tool({ content: "", image })).input).toEqual([
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [{ type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" }],
      },
    ]);
  });

  it("maps the call id exactly like the function call it answers", () => {
    const longId = `x${"1".repeat(70)}`;
    const [item] = convertToolMessage(tool({ callId: longId })).input;
    expect(item?.call_id).toMatch(/^call_[0-9a-f]{48}$/);
    expect(convertToolMessage(tool({ callId: longId })).input[0]?.call_id).toBe(item?.call_id);
  });
});
