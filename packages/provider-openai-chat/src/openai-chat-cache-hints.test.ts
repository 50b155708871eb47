import { describe, expect, it } from "vitest";
import { sha256Hex } from "@cursor/run";
import { openAIChatPromptCacheKey, toChatPromptCacheRetention } from "./openai-chat-cache-hints.js";

describe("openai chat cache hints", () => {
  it("derives a 32-hex prompt_cache_key per conversation", () => {
    expect(openAIChatPromptCacheKey("conv-1")).toBe(sha256Hex("openai-chat:conv-1").slice(0, 32));
    expect(openAIChatPromptCacheKey("conv-1")).toMatch(/^[0-9a-f]{32}$/);
    expect(openAIChatPromptCacheKey("conv-2")).not.toBe(openAIChatPromptCacheKey("conv-1"));
  });

  it("spells the retention policy as the API does", () => {
    expect(toChatPromptCacheRetention("in-memory")).toBe("in_memory");
    expect(toChatPromptCacheRetention("24h")).toBe("24h");
  });
});
