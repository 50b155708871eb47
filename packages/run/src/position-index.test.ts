import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PositionIndex } from "./position-index.js";

describe("PositionIndex", () => {
  it("finds each element's position by its key, as a Map would, while the list grows", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 12 }), { maxLength: 300 }), (keys) => {
        const list: string[] = [];
        const index = new PositionIndex((position) => list[position]);
        const reference = new Map<string, number>();
        keys.forEach((key, position) => {
          list.push(key);
          index.add(key, position);
          reference.set(key, position);
        });
        for (const [key, position] of reference) expect(index.get(key)).toBe(position);
        expect(index.get("\u0000absent")).toBeUndefined();
        expect(index.has(keys[0] ?? "\u0000absent")).toBe(keys.length > 0);
        expect(index.size).toBe(keys.length);
      }),
    );
  });

  it("indexes only the elements added (a list may hold elements without a key)", () => {
    const list = [{ id: "a" }, { id: "b", eventId: "e" }, { id: "c" }];
    const byEventId = new PositionIndex((position) => list[position]?.eventId);
    byEventId.add("e", 1);
    expect(byEventId.get("e")).toBe(1);
    expect(byEventId.get("a")).toBeUndefined();
    expect(byEventId.size).toBe(1);
  });

  it("holds 4 bytes per slot, at most half of the slots used", () => {
    const list: string[] = [];
    const index = new PositionIndex((position) => list[position]);
    for (let position = 0; position < 1000; position += 1) {
      list.push(`message:${position}`);
      index.add(list[position]!, position);
    }
    expect(index.bytes).toBeLessThanOrEqual(4 * 4 * 1000);
    expect(index.bytes).toBeGreaterThanOrEqual(4 * 2 * 1000);
  });
});
