import { describe, expect, it } from "vitest";
import { clip, textDiff } from "./text-diff.js";

describe("textDiff", () => {
  it("shows the changed lines with a little context", () => {
    expect(textDiff("a\nb\nc\nd\ne", "a\nb\nC\nd\ne", { context: 1 })).toEqual([
      "  @@ line 3 @@",
      "   b",
      "  -c",
      "  +C",
      "   d",
    ]);
  });

  it("cuts long changed lines to a window around the change", () => {
    const before = `${"x".repeat(500)}10:41${"y".repeat(500)}`;
    const after = `${"x".repeat(500)}10:42${"y".repeat(500)}`;
    const [, removed, added] = textDiff(before, after, { width: 60 });
    expect(removed).toMatch(/^ {2}-…x+10:41y+…$/);
    expect(added).toMatch(/^ {2}\+…x+10:42y+…$/);
    expect(removed!.length).toBeLessThan(70);
  });

  it("elides long runs and says identical texts are", () => {
    const many = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const lines = textDiff("start", many, { maxLines: 5 });
    expect(lines.filter((line) => line.startsWith("  +"))).toHaveLength(5);
    expect(lines.at(-1)).toBe("  (1 line(s) removed, 30 added)");
    expect(textDiff("same", "same")).toEqual(["  (identical)"]);
    expect(clip("short", 0, 10)).toBe("short");
  });
});
