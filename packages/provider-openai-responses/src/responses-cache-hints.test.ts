import { describe, expect, it } from "vitest";
import { responsesPromptCacheKey, responsesPromptCacheRetention } from "./responses-cache-hints.js";

describe("responsesPromptCacheKey", () => {
  it("is stable per conversation, distinct across conversations, and hides the id", () => {
    const key = responsesPromptCacheKey("conv-1");
    expect(key).toBe(responsesPromptCacheKey("conv-1"));
    expect(key).toMatch(/^conv_[0-9a-f]{40}$/);
    expect(key).not.toContain("conv-1");
    expect(responsesPromptCacheKey("conv-2")).not.toBe(key);
  });
});

describe("responsesPromptCacheRetention", () => {
  it("maps the option spelling to the wire spelling", () => {
    expect(responsesPromptCacheRetention("in-memory")).toBe("in_memory");
    expect(responsesPromptCacheRetention("24h")).toBe("24h");
  });
});
