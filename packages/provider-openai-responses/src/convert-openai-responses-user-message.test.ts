import type { ModelUserMessage, ModelUserSource } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { convertUserMessage } from "./convert-openai-responses-user-message.js";

const sources: ModelUserSource[] = ["request-context", "runtime", "summary", "user", "tail"];

describe("convertUserMessage", () => {
  it("renders every source as a plain user message built from the parts alone", () => {
    const rendered = sources.map((source) =>
      JSON.stringify(
        convertUserMessage({
          role: "user",
          id: `${source}:1`,
          source,
          content: [{ type: "text", text: "<rules>x</rules>" }],
        }),
      ),
    );
    expect(new Set(rendered).size).toBe(1);
    expect(rendered[0]).toBe(
      '{"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"<rules>x</rules>"}]}],"warnings":[]}',
    );
  });

  it("keeps text and images in order, images as data URLs", () => {
    const message: ModelUserMessage = {
      role: "user",
      id: "user:1",
      source: "user",
      content: [
        { type: "image", mimeType: "image/webp", data: "UklGRg==" },
        { type: "text", text: "what is this?" },
        { type: "image", mimeType: "image/png", data: "iVBO" },
      ],
    };
    expect(convertUserMessage(message).input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_image", image_url: "data:image/webp;base64,UklGRg==", detail: "auto" },
          { type: "input_text", text: "what is this?" },
          { type: "input_image", image_url: "data:image/png;base64,iVBO", detail: "auto" },
        ],
      },
    ]);
  });
});
