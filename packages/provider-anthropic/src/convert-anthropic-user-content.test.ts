import { describe, expect, it } from "vitest";
import { convertAnthropicUserContent } from "./convert-anthropic-user-content.js";

describe("convertAnthropicUserContent", () => {
  it("renders text verbatim and images as base64 blocks, in part order", () => {
    const { blocks, warnings } = convertAnthropicUserContent({
      path: "messages[0]",
      message: {
        role: "user",
        id: "runtime:t",
        source: "runtime",
        content: [
          { type: "text", text: "<query>hi</query>" },
          { type: "image", mimeType: "image/webp", data: "UklGRg==" },
          { type: "text", text: "after" },
        ],
      },
    });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(blocks)).toBe(
      JSON.stringify([
        { type: "text", text: "<query>hi</query>" },
        { type: "image", source: { type: "base64", media_type: "image/webp", data: "UklGRg==" } },
        { type: "text", text: "after" },
      ]),
    );
  });

  it("drops empty and whitespace-only text and replaces unsupported images, with warnings", () => {
    const { blocks, warnings } = convertAnthropicUserContent({
      path: "messages[2]",
      message: {
        role: "user",
        id: "user:u",
        source: "user",
        content: [
          { type: "text", text: "" },
          { type: "image", mimeType: "image/bmp", data: "Qk0=" },
          { type: "text", text: " \n\t" },
        ],
      },
    });
    expect(blocks).toEqual([{ type: "text", text: "[image omitted: image/bmp is not supported]" }]);
    expect(warnings).toEqual([
      { type: "dropped", message: "blank text part dropped", path: "messages[2].content[0]" },
      {
        type: "unsupported",
        message:
          "image media type image/bmp is not supported by Anthropic; replaced by a text note",
        path: "messages[2].content[1]",
      },
      { type: "dropped", message: "blank text part dropped", path: "messages[2].content[2]" },
    ]);
  });
});
