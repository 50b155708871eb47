import { describe, expect, it } from "vitest";
import { lineDiff } from "./line-diff.js";
import { capItems, capText, normalizeLf } from "./tool-text.js";

describe("tool-result text", () => {
  it("normalises line endings to LF", () => {
    expect(normalizeLf("a\r\nb\rc\n")).toBe("a\nb\nc\n");
  });

  it("caps text at a line end with a visible note, never splitting a code point", () => {
    expect(capText("short", 10)).toBe("short");
    const text = "line one\nline two\nline three\n";
    expect(capText(text, 20, "read less")).toBe(
      `line one\nline two\n[truncated: showing 18 of ${text.length} bytes; read less]`,
    );
    const emoji = "😀😀😀";
    const capped = capText(emoji, 6);
    expect(capped.startsWith("😀\n[truncated: showing 4 of 12 bytes]")).toBe(true);
  });

  it("caps items with a note, and the same input always renders the same bytes", () => {
    expect(capItems([1, 2, 3], 2, "files")).toEqual({
      kept: [1, 2],
      note: "[truncated: showing 2 of 3 files]",
    });
    expect(capItems([1], 2, "files")).toEqual({ kept: [1], note: undefined });
  });

  it("diffs one changed region as one hunk", () => {
    expect(lineDiff({ path: "/a", before: "x\ny\nz\n", after: "x\nY\nz\n" })).toEqual({
      added: 1,
      removed: 1,
      text: "--- /a\n+++ /a\n@@ -2,1 +2,1 @@\n-y\n+Y\n",
    });
    expect(lineDiff({ path: "/a", before: "same", after: "same" }).text).toBe("");
  });
});
