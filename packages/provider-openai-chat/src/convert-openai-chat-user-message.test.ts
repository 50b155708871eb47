import { describe, expect, it } from "vitest";
import type { ModelUserMessage } from "@cursor/run";
import { convertOpenAIChatUserMessage } from "./convert-openai-chat-user-message.js";

function user(content: ModelUserMessage["content"], source: ModelUserMessage["source"] = "user") {
  return { role: "user", id: "user:1", source, content } satisfies ModelUserMessage;
}

describe("convertOpenAIChatUserMessage", () => {
  it("sends a single text part as a plain string, whatever the source", () => {
    for (const source of ["request-context", "runtime", "summary", "user", "tail"] as const) {
      expect(convertOpenAIChatUserMessage(user([{ type: "text", text: "hello" }], source))).toEqual(
        {
          role: "user",
          content: "hello",
        },
      );
    }
  });

  it("sends several parts in order, images as base64 data URLs", () => {
    const message = user([
      { type: "text", text: "first" },
      { type: "image", mimeType: "image/jpeg", data: "AAEC" },
      { type: "text", text: "second" },
    ]);
    expect(convertOpenAIChatUserMessage(message)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "first" },
        { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAEC" } },
        { type: "text", text: "second" },
      ],
    });
  });

  it("keeps a lone image as a parts list", () => {
    const message = user([{ type: "image", mimeType: "image/png", data: "AA==" }]);
    expect(convertOpenAIChatUserMessage(message)).toEqual({
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }],
    });
  });
});
