import { describe, expect, it } from "vitest";
import { toAnthropicToolCallId } from "./anthropic-tool-call-id.js";

describe("toAnthropicToolCallId", () => {
  it("passes valid ids through unchanged", () => {
    expect(toAnthropicToolCallId("toolu_01ABCdef-9")).toBe("toolu_01ABCdef-9");
    expect(toAnthropicToolCallId("call_abc")).toBe("call_abc");
  });

  it("sanitises invalid characters and adds a hash suffix", () => {
    const mapped = toAnthropicToolCallId("fc.123:abc");
    expect(mapped).toMatch(/^fc_123_abc_[0-9a-f]{12}$/);
    expect(mapped).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it("maps the same id the same way every time", () => {
    expect(toAnthropicToolCallId("a.b")).toBe(toAnthropicToolCallId("a.b"));
  });

  it("keeps ids apart that sanitise to the same text", () => {
    const first = toAnthropicToolCallId("a.b");
    const second = toAnthropicToolCallId("a:b");
    expect(first).not.toBe(second);
    expect(first.startsWith("a_b_")).toBe(true);
    expect(second.startsWith("a_b_")).toBe(true);
    expect(toAnthropicToolCallId("a_b")).toBe("a_b");
  });
});
