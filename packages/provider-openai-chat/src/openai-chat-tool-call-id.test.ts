import { describe, expect, it } from "vitest";
import { sha256Hex } from "@cursor/run";
import { toOpenAIChatToolCallId } from "./openai-chat-tool-call-id.js";

describe("toOpenAIChatToolCallId", () => {
  it("keeps ids the API accepts", () => {
    for (const id of ["call_abc123", "toolu_01A09q90qw90lq917835lq9", "a-b_C", "x".repeat(40)]) {
      expect(toOpenAIChatToolCallId(id)).toBe(id);
    }
  });

  it("hashes long or unusual ids to call_ + 32 hex, the same way every time", () => {
    for (const id of [
      "x".repeat(41),
      "call:1",
      "id.with.dots",
      "fc_0f0e50a1476a6c35006912c58dc9f8819192c25864eb16f07f",
    ]) {
      const mapped = toOpenAIChatToolCallId(id);
      expect(mapped).toBe(`call_${sha256Hex(id).slice(0, 32)}`);
      expect(mapped).toHaveLength(37);
      expect(toOpenAIChatToolCallId(id)).toBe(mapped);
    }
  });
});
