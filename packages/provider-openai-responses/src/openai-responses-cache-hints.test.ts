import { describe, expect, it } from "vitest";
import { codingSession } from "./__fixtures__/coding-session.js";
import { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";
import {
  openAIResponsesPromptCacheKey,
  toOpenAIResponsesWirePromptCacheRetention,
} from "./openai-responses-cache-hints.js";
import { serializeOpenAIResponsesRequest } from "./serialize-openai-responses-request.js";

describe("openAIResponsesPromptCacheKey", () => {
  it("is stable per conversation, distinct across conversations, and hides the id", () => {
    const key = openAIResponsesPromptCacheKey({ conversationId: "conv-1" });
    expect(key).toBe(openAIResponsesPromptCacheKey({ conversationId: "conv-1" }));
    expect(key).toMatch(/^conv_[0-9a-f]{40}$/);
    expect(key).not.toContain("conv-1");
    expect(openAIResponsesPromptCacheKey({ conversationId: "conv-2" })).not.toBe(key);
  });

  it("is distinct per cache scope (a gateway's tenant) for the same conversation id, hiding the scope", () => {
    const a = openAIResponsesPromptCacheKey({ conversationId: "conv-1", cacheScope: "scope-a" });
    const b = openAIResponsesPromptCacheKey({ conversationId: "conv-1", cacheScope: "scope-b" });
    expect(a).toMatch(/^conv_[0-9a-f]{40}$/);
    expect(a).not.toBe(b);
    expect(a).not.toBe(openAIResponsesPromptCacheKey({ conversationId: "conv-1" }));
    expect(a).toBe(
      openAIResponsesPromptCacheKey({ conversationId: "conv-1", cacheScope: "scope-a" }),
    );
    expect(a).not.toContain("scope-a");
    // The pair is encoded unambiguously: moving text between scope and id gives another key.
    expect(openAIResponsesPromptCacheKey({ conversationId: "b", cacheScope: "a:" })).not.toBe(
      openAIResponsesPromptCacheKey({ conversationId: ":b", cacheScope: "a" }),
    );
  });

  it("keeps the keys it has always derived, so existing conversations keep their caches", () => {
    expect(openAIResponsesPromptCacheKey({ conversationId: "conv-1" })).toBe(
      "conv_da7532ad54ad85c6d6ce9bce8fa3ac63ddc50373",
    );
    expect(openAIResponsesPromptCacheKey({ conversationId: "conv-1", cacheScope: "scope-a" })).toBe(
      "conv_5830891e56d5e4024e580e21d13fdeb4a0db2620",
    );
  });
});

describe("toOpenAIResponsesWirePromptCacheRetention", () => {
  it("maps the option spelling to the wire spelling", () => {
    expect(toOpenAIResponsesWirePromptCacheRetention("in-memory")).toBe("in_memory");
    expect(toOpenAIResponsesWirePromptCacheRetention("24h")).toBe("24h");
  });
});

describe("prompt_cache_options (GPT-5.6 and later)", () => {
  it("is sent after prompt_cache_key, with only the fields set, in a fixed order", () => {
    const request = codingSession().turn1Call1;
    const body = serializeOpenAIResponsesRequest({
      request,
      settings: { promptCacheOptions: { ttl: "30m", mode: "implicit" } },
    }).body;
    expect(Object.keys(body).slice(-2)).toEqual(["prompt_cache_key", "prompt_cache_options"]);
    expect(JSON.stringify(body.prompt_cache_options)).toBe('{"mode":"implicit","ttl":"30m"}');
    expect("prompt_cache_retention" in body).toBe(false);
    const ttlOnly = serializeOpenAIResponsesRequest({
      request,
      settings: { promptCacheOptions: { ttl: "30m" } },
    });
    expect(ttlOnly.body.prompt_cache_options).toEqual({ ttl: "30m" });
  });

  it("is never sent together with prompt_cache_retention", () => {
    expect(() =>
      createOpenAIResponsesAdapter({
        apiKey: "k",
        promptCacheRetention: "24h",
        promptCacheOptions: { ttl: "30m" },
      }),
    ).toThrow(/promptCacheRetention and promptCacheOptions/);
  });
});
