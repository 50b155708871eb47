import { describe, expect, it } from "vitest";
import {
  maxOpenAIResponsesToolCallIdLength,
  toOpenAIResponsesToolCallId,
} from "./openai-responses-tool-call-id.js";

describe("toOpenAIResponsesToolCallId", () => {
  it("keeps ids the API accepts unchanged", () => {
    expect(toOpenAIResponsesToolCallId("call_abc123")).toBe("call_abc123");
    expect(toOpenAIResponsesToolCallId("toolu_01A-b_c")).toBe("toolu_01A-b_c");
    const longest = "x".repeat(maxOpenAIResponsesToolCallIdLength);
    expect(toOpenAIResponsesToolCallId(longest)).toBe(longest);
  });

  it("hashes longer ids to a stable 53-character id", () => {
    const long = "y".repeat(maxOpenAIResponsesToolCallIdLength + 1);
    const mapped = toOpenAIResponsesToolCallId(long);
    expect(mapped).toMatch(/^call_[0-9a-f]{48}$/);
    expect(toOpenAIResponsesToolCallId(long)).toBe(mapped);
    expect(toOpenAIResponsesToolCallId(`${long}z`)).not.toBe(mapped);
  });
});
