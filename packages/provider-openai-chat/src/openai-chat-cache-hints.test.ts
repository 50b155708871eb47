import { describe, expect, it } from "vitest";
import { conversationRequests } from "./__fixtures__/conversation.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";
import { serializeOpenAIChatRequest } from "./serialize-openai-chat-request.js";
import { sha256Hex } from "@cursor/run";
import { openAIChatPromptCacheKey, toChatPromptCacheRetention } from "./openai-chat-cache-hints.js";

describe("openai chat cache hints", () => {
  it("derives a 32-hex prompt_cache_key per conversation", () => {
    const key = (conversationId: string, cacheScope?: string) =>
      openAIChatPromptCacheKey({
        conversationId,
        ...(cacheScope === undefined ? {} : { cacheScope }),
      });
    expect(key("conv-1")).toBe(sha256Hex("openai-chat:conv-1").slice(0, 32));
    expect(key("conv-1")).toMatch(/^[0-9a-f]{32}$/);
    expect(key("conv-2")).not.toBe(key("conv-1"));
    // Scoped by tenant: the same conversation id of two scopes gets two keys.
    expect(key("conv-1", "scope-a")).toBe("4c83357902d99f2e85789cb458bd7085");
    expect(key("conv-1", "scope-a")).not.toBe(key("conv-1", "scope-b"));
    expect(key("conv-1", "scope-a")).not.toBe(key("conv-1"));
  });

  it("spells the retention policy as the API does", () => {
    expect(toChatPromptCacheRetention("in-memory")).toBe("in_memory");
    expect(toChatPromptCacheRetention("24h")).toBe("24h");
  });
});

describe("prompt_cache_options (GPT-5.6 and later)", () => {
  it("is sent after prompt_cache_key, only the fields set, in a fixed order", () => {
    const body = serializeOpenAIChatRequest({
      request: conversationRequests()[0]!,
      settings: {
        systemRole: "system",
        replayReasoningContent: false,
        promptCacheOptions: { ttl: "30m", mode: "implicit" },
      },
    }).body;
    expect(Object.keys(body).slice(-4)).toEqual([
      "prompt_cache_key",
      "prompt_cache_options",
      "stream",
      "stream_options",
    ]);
    expect(JSON.stringify(body.prompt_cache_options)).toBe('{"mode":"implicit","ttl":"30m"}');
    expect("prompt_cache_retention" in body).toBe(false);
  });

  it("is never sent together with prompt_cache_retention", () => {
    expect(() =>
      createOpenAIChatAdapter({ promptCacheRetention: "24h", promptCacheOptions: { ttl: "30m" } }),
    ).toThrow(/promptCacheRetention and promptCacheOptions/);
  });
});
