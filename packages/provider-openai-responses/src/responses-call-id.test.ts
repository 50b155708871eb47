import { describe, expect, it } from "vitest";
import { maxResponsesCallIdLength, toResponsesCallId } from "./responses-call-id.js";

describe("toResponsesCallId", () => {
  it("keeps ids the API accepts unchanged", () => {
    expect(toResponsesCallId("call_abc123")).toBe("call_abc123");
    expect(toResponsesCallId("toolu_01A-b_c")).toBe("toolu_01A-b_c");
    const longest = "x".repeat(maxResponsesCallIdLength);
    expect(toResponsesCallId(longest)).toBe(longest);
  });

  it("hashes longer ids to a stable 53-character id", () => {
    const long = "y".repeat(maxResponsesCallIdLength + 1);
    const mapped = toResponsesCallId(long);
    expect(mapped).toMatch(/^call_[0-9a-f]{48}$/);
    expect(toResponsesCallId(long)).toBe(mapped);
    expect(toResponsesCallId(`${long}z`)).not.toBe(mapped);
  });
});
