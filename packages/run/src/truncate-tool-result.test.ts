import { describe, expect, it } from "vitest";
import { truncateToolResult } from "./truncate-tool-result.js";

describe("truncateToolResult boundaries", () => {
  it("leaves results at or under the limit untouched, including empty ones", () => {
    expect(truncateToolResult("", 0)).toBe("");
    expect(truncateToolResult("abc", 3)).toBe("abc");
    expect(truncateToolResult("x".repeat(1_000), 1_000)).toBe("x".repeat(1_000));
  });

  it("cuts one character over the limit to at most the limit, head and tail kept", () => {
    const content = `${"h".repeat(500)}${"t".repeat(501)}`;
    const cut = truncateToolResult(content, 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(/^h{500}t*\n\[… \d+ characters omitted …\]\nt+$/);
    const omitted = Number(/\[… (\d+) characters/.exec(cut)![1]);
    const kept = cut.length - `\n[… ${omitted} characters omitted …]\n`.length;
    expect(kept + omitted).toBe(content.length);
  });

  it("is deterministic and degrades to the marker alone for tiny limits", () => {
    const content = "y".repeat(200);
    expect(truncateToolResult(content, 50)).toBe(truncateToolResult(content, 50));
    expect(truncateToolResult(content, 5)).toBe("\n[… 200 characters omitted …]\n");
  });
});
