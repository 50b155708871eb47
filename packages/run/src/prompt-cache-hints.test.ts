import { describe, expect, it } from "vitest";
import { sha256Hex } from "./canonical-json.js";
import {
  assertOnePromptCacheSetting,
  promptCacheKeyDigest,
  toWirePromptCacheOptions,
  toWirePromptCacheRetention,
} from "./prompt-cache-hints.js";

describe("promptCacheKeyDigest", () => {
  const digest = (conversationId: string, cacheScope?: string) =>
    promptCacheKeyDigest({ namespace: "ns", separator: ":", conversationId, cacheScope });

  it("hashes the namespace and the conversation id, joined by the separator", () => {
    expect(digest("conv-1")).toBe(sha256Hex("ns:conv-1"));
    expect(
      promptCacheKeyDigest({ namespace: "ns", separator: "\u0000", conversationId: "conv-1" }),
    ).toBe(sha256Hex("ns\u0000conv-1"));
    expect(digest("conv-2")).not.toBe(digest("conv-1"));
  });

  it("puts the scope and the id in as one JSON pair", () => {
    expect(digest("conv-1", "scope-a")).toBe(sha256Hex('ns:scoped:["scope-a","conv-1"]'));
    expect(digest("conv-1", "scope-a")).not.toBe(digest("conv-1", "scope-b"));
    expect(digest("conv-1", "scope-a")).not.toBe(digest("conv-1"));
    // Moving text between scope and id gives another digest.
    expect(digest("b", "a:")).not.toBe(digest(":b", "a"));
  });

  it("gives the same digest when asked again, also after more conversations than it keeps", () => {
    const first = digest("conv-again");
    for (let index = 0; index < 5000; index += 1) digest(`conv-${index}`);
    expect(digest("conv-again")).toBe(first);
    expect(digest("conv-again")).toBe(sha256Hex("ns:conv-again"));
    expect(digest("conv-4999")).toBe(sha256Hex("ns:conv-4999"));
  });
});

describe("toWirePromptCacheRetention", () => {
  it("spells the policies as the API does", () => {
    expect(toWirePromptCacheRetention("in-memory")).toBe("in_memory");
    expect(toWirePromptCacheRetention("24h")).toBe("24h");
  });
});

describe("toWirePromptCacheOptions", () => {
  it("keeps only the fields set, mode before ttl", () => {
    expect(JSON.stringify(toWirePromptCacheOptions({ ttl: "30m", mode: "explicit" }))).toBe(
      '{"mode":"explicit","ttl":"30m"}',
    );
    expect(toWirePromptCacheOptions({ ttl: "30m" })).toStrictEqual({ ttl: "30m" });
    expect(toWirePromptCacheOptions({})).toStrictEqual({});
  });
});

describe("assertOnePromptCacheSetting", () => {
  it("accepts either setting alone and refuses both", () => {
    expect(() => assertOnePromptCacheSetting({})).not.toThrow();
    expect(() => assertOnePromptCacheSetting({ promptCacheRetention: "24h" })).not.toThrow();
    expect(() => assertOnePromptCacheSetting({ promptCacheOptions: { ttl: "30m" } })).not.toThrow();
    expect(() =>
      assertOnePromptCacheSetting({ promptCacheRetention: "24h", promptCacheOptions: {} }),
    ).toThrow(TypeError);
  });
});
