import { describe, expect, it } from "vitest";
import { firstDivergence, formatDivergence, pathOf } from "./first-divergence.js";

describe("firstDivergence", () => {
  it("returns null for values that serialise identically", () => {
    expect(firstDivergence({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] })).toBeNull();
    expect(firstDivergence({ a: 1, skip: undefined }, { a: 1 })).toBeNull();
  });

  it("names the first diverging path in serialisation order", () => {
    const before = {
      model: "m",
      input: [{ role: "user", content: [{ type: "text", text: "a" }] }],
    };
    const after = { model: "m", input: [{ role: "user", content: [{ type: "text", text: "b" }] }] };
    expect(firstDivergence(before, after)).toEqual({
      path: "input[0].content[0].text",
      reason: "value",
      left: "a",
      right: "b",
    });
  });

  it("reports missing, extra, type and key-order differences", () => {
    expect(firstDivergence([1, 2], [1])).toMatchObject({ path: "[1]", reason: "missing", left: 2 });
    expect(firstDivergence([1], [1, 2])).toMatchObject({ path: "[1]", reason: "extra", right: 2 });
    expect(firstDivergence({ a: 1 }, { a: "1" })).toMatchObject({ path: "a", reason: "type" });
    expect(firstDivergence({ a: 1, b: 2 }, { b: 2, a: 1 })).toMatchObject({
      path: "a",
      reason: "key-order",
    });
    expect(firstDivergence({ a: 1, b: 2 }, { a: 1 })).toMatchObject({
      path: "b",
      reason: "missing",
    });
    expect(firstDivergence({ "x-y": { z: 1 } }, { "x-y": { z: 2 } })?.path).toBe('["x-y"].z');
    expect(firstDivergence("a", "b", "input[3]")?.path).toBe("input[3]");
  });

  it("formats a divergence for failure messages", () => {
    const divergence = firstDivergence({ a: ["x"] }, { a: ["y"] })!;
    expect(formatDivergence(divergence)).toBe('a[0] (value): "x" → "y"');
  });
});

describe("pathOf", () => {
  it("finds an object by identity", () => {
    const block = { type: "text" };
    const body = { messages: [{ content: [{ type: "image" }, block] }] };
    expect(pathOf(body, block)).toBe("messages[0].content[1]");
    expect(pathOf(body, { type: "text" })).toBeUndefined();
  });
});
