import { describe, expect, it } from "vitest";
import { RecentIds } from "./recent-ids.js";

describe("RecentIds", () => {
  it("keeps the last `capacity` objects asked for, the least recently used leaving first", () => {
    const ids = new RecentIds(2);
    const [a, b, c] = [{}, {}, {}];
    ids.set(a, "a");
    ids.set(b, "b");
    // A hit makes `a` the most recent: `b` is the one to leave.
    expect(ids.get(a)).toBe("a");
    ids.set(c, "c");
    expect(ids.has(b)).toBe(false);
    expect(ids.get(a)).toBe("a");
    expect(ids.get(c)).toBe("c");
    // Setting a held object again keeps one entry.
    ids.set(c, "c");
    ids.set(b, "b");
    expect(ids.has(a)).toBe(false);
    expect([ids.get(b), ids.get(c)]).toEqual(["b", "c"]);
  });
});
