import { describe, expect, it } from "vitest";
import type { ModelToolMessage } from "@cursor/run";
import type { IndexedToolMessage } from "./convert-openai-chat-tool-messages.js";
import {
  convertOpenAIChatToolMessage,
  roundImageMessage,
} from "./convert-openai-chat-tool-messages.js";

/** A round as `convertToOpenAIChatInput` sends it: each result's message, then its images. */
function convertOpenAIChatToolMessages(round: readonly IndexedToolMessage[]) {
  const converted = round.map(convertOpenAIChatToolMessage);
  const imageMessage = roundImageMessage(converted.flatMap((result) => result.imageParts));
  return {
    messages: [
      ...converted.map((result) => result.message),
      ...(imageMessage === undefined ? [] : [imageMessage]),
    ],
    warnings: converted.flatMap((result) => result.warnings),
  };
}

function tool(callId: string, overrides: Partial<ModelToolMessage> = {}): ModelToolMessage {
  return {
    role: "tool",
    id: `tool-result:${callId}`,
    callId,
    name: "screenshot",
    content: `result ${callId}`,
    isError: false,
    ...overrides,
  };
}

describe("convertOpenAIChatToolMessage and roundImageMessage", () => {
  it("sends one tool message per result, content verbatim, errors included", () => {
    expect(
      convertOpenAIChatToolMessages([
        { message: tool("call_1"), index: 3 },
        { message: tool("call_2", { content: "boom", isError: true }), index: 4 },
      ]),
    ).toEqual({
      messages: [
        { role: "tool", tool_call_id: "call_1", content: "result call_1" },
        { role: "tool", tool_call_id: "call_2", content: "boom" },
      ],
      warnings: [],
    });
  });

  it("moves the round's images into one user message after all of its tool messages", () => {
    const image = { type: "image", mimeType: "image/png", data: "AA==" } as const;
    const longId = "x".repeat(41);
    const { messages, warnings } = convertOpenAIChatToolMessages([
      { message: tool("call_1", { image }), index: 3 },
      { message: tool("call_2"), index: 4 },
      { message: tool(longId, { name: "capture", image: { ...image, data: "AQ==" } }), index: 5 },
    ]);
    expect(messages).toEqual([
      { role: "tool", tool_call_id: "call_1", content: "result call_1" },
      { role: "tool", tool_call_id: "call_2", content: "result call_2" },
      {
        role: "tool",
        tool_call_id: "call_3164596df4fdd018b2c567ec8c03e79b",
        content: `result ${longId}`,
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Image returned by tool call call_1 (screenshot):" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
          {
            type: "text",
            text: "Image returned by tool call call_3164596df4fdd018b2c567ec8c03e79b (capture):",
          },
          { type: "image_url", image_url: { url: "data:image/png;base64,AQ==" } },
        ],
      },
    ]);
    expect(warnings.map((warning) => [warning.type, warning.path])).toEqual([
      ["unsupported", "messages[3].image"],
      ["unsupported", "messages[5].image"],
    ]);
  });
});
