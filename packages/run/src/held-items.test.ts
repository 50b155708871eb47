import { describe, expect, it } from "vitest";
import { holdItems, pushHeldItems } from "./held-items.js";

describe("holdItems", () => {
  it("holds a single item as the item itself, no list around it", () => {
    const item = Object.freeze({ type: "a" });
    expect(holdItems([item])).toBe(item);
  });

  it("holds several items as one frozen list of exactly those objects", () => {
    const items = [{ type: "a" }, { type: "b" }];
    const held = holdItems(items);
    expect(Array.isArray(held)).toBe(true);
    expect(Object.isFrozen(held)).toBe(true);
    expect(held).not.toBe(items);
    expect((held as readonly object[])[0]).toBe(items[0]);
    expect((held as readonly object[])[1]).toBe(items[1]);
  });

  it("holds every empty list as one shared frozen empty list", () => {
    const first = holdItems([]);
    expect(first).toBe(holdItems([]));
    expect(Object.isFrozen(first)).toBe(true);
  });
});

describe("pushHeldItems", () => {
  it("appends what was held, in order, whatever its form", () => {
    const [a, b, c] = [{ n: 1 }, { n: 2 }, { n: 3 }];
    const target: object[] = [];
    pushHeldItems(target, holdItems([a]));
    pushHeldItems(target, holdItems([]));
    pushHeldItems(target, holdItems([b, c]));
    expect(target).toEqual([a, b, c]);
    expect(target[0]).toBe(a);
    expect(target[2]).toBe(c);
  });
});
