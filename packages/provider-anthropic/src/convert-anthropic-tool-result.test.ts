import { describe, expect, it } from "vitest";
import type { ModelToolMessage } from "@cursor/run";
import { convertAnthropicToolResult } from "./convert-anthropic-tool-result.js";

const tool = (overrides: Partial<ModelToolMessage>): ModelToolMessage => ({
  role: "tool",
  id: "tool-result:toolu_1",
  callId: "toolu_1",
  name: "read_file",
  content: "text",
  isError: false,
  ...overrides,
});

describe("convertAnthropicToolResult", () => {
  it("sends text then image, with is_error", () => {
    const { block, warnings } = convertAnthropicToolResult({
      path: "messages[2]",
      message: tool({
        isError: true,
        image: { type: "image", mimeType: "image/jpeg", data: "AAAA" },
      }),
    });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(block)).toBe(
      JSON.stringify({
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [
          { type: "text", text: "text" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
        ],
        is_error: true,
      }),
    );
  });

  it("omits content when the result is empty or whitespace only", () => {
    for (const content of ["", "\n  \n"]) {
      expect(convertAnthropicToolResult({ path: "p", message: tool({ content }) })).toEqual({
        block: { type: "tool_result", tool_use_id: "toolu_1", is_error: false },
        warnings: [],
      });
    }
  });

  it("maps the call id the same way as the tool_use it answers", () => {
    const { block } = convertAnthropicToolResult({
      path: "p",
      message: tool({ callId: "call.x:1" }),
    });
    expect(block.tool_use_id).toMatch(/^call_x_1_[0-9a-f]{12}$/);
  });

  it("replaces an unsupported image type by a text note", () => {
    const { block, warnings } = convertAnthropicToolResult({
      path: "messages[4]",
      message: tool({ image: { type: "image", mimeType: "image/svg+xml", data: "AAAA" } }),
    });
    expect(block.content).toEqual([
      { type: "text", text: "text" },
      { type: "text", text: "[image omitted: image/svg+xml is not supported]" },
    ]);
    expect(warnings).toEqual([
      {
        type: "unsupported",
        message:
          "image media type image/svg+xml is not supported by Anthropic; replaced by a text note",
        path: "messages[4].image",
      },
    ]);
  });
});
