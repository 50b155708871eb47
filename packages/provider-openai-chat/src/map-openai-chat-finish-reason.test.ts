import { describe, expect, it } from "vitest";
import { mapOpenAIChatFinishReason } from "./map-openai-chat-finish-reason.js";

describe("mapOpenAIChatFinishReason", () => {
  it("maps every Chat finish reason", () => {
    expect(
      ["stop", "tool_calls", "function_call", "length", "content_filter", "eos", ""].map(
        mapOpenAIChatFinishReason,
      ),
    ).toEqual(["stop", "tool-calls", "tool-calls", "length", "content-filter", "other", "other"]);
  });
});
