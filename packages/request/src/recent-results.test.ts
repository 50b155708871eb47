import { describe, expect, it } from "vitest";
import { RecentResults } from "./recent-results.js";

describe("RecentResults", () => {
  it("finds a result again by an equal input, not only the same object", () => {
    const recent = new RecentResults<object, string>(2);
    recent.set({ rules: [{ name: "a" }] }, "compiled a");
    expect(recent.get({ rules: [{ name: "a" }] })).toBe("compiled a");
    expect(recent.get({ rules: [{ name: "b" }] })).toBeUndefined();
  });

  it("keeps the most recently used entries within its capacity", () => {
    const recent = new RecentResults<{ n: number }, number>(2);
    recent.set({ n: 1 }, 1);
    recent.set({ n: 2 }, 2);
    // Using 1 makes 2 the least recently used: storing 3 drops it.
    expect(recent.get({ n: 1 })).toBe(1);
    recent.set({ n: 3 }, 3);
    expect(recent.size).toBe(2);
    expect(recent.get({ n: 2 })).toBeUndefined();
    expect(recent.get({ n: 1 })).toBe(1);
    expect(recent.get({ n: 3 })).toBe(3);
  });

  it("refuses a capacity that is not a positive integer", () => {
    expect(() => new RecentResults(0)).toThrow(/positive integer/);
    expect(() => new RecentResults(1.5)).toThrow(/positive integer/);
  });
});
