import { describe, expect, it } from "vitest";
import { mapOpenAIResponsesFinishReason } from "./map-openai-responses-finish-reason.js";

describe("mapOpenAIResponsesFinishReason", () => {
  it.each([
    ["completed", undefined, false, "stop"],
    ["completed", undefined, true, "tool-calls"],
    ["incomplete", "max_output_tokens", true, "length"],
    ["incomplete", "content_filter", false, "content-filter"],
    ["incomplete", null, false, "other"],
    ["incomplete", "something_new", false, "other"],
  ] as const)("%s / %s / tool calls %s → %s", (status, incompleteReason, hasToolCalls, reason) => {
    expect(mapOpenAIResponsesFinishReason({ status, incompleteReason, hasToolCalls })).toBe(reason);
  });
});
