import { describe, expect, it } from "vitest";
import { SequenceMemo } from "./sequence-memo.js";

const key = (name: string) => Object.freeze({ name });

function counting() {
  const computed: string[] = [];
  const memo = new SequenceMemo<{ name: string }, string>();
  const map = (keys: readonly { name: string }[]) =>
    memo.map(keys, (k, index) => {
      computed.push(`${k.name}@${index}`);
      return `${k.name}:${index}`;
    });
  return { memo, computed, map };
}

describe("SequenceMemo", () => {
  const [a, b, c, d] = ["a", "b", "c", "d"].map(key) as [
    { name: string },
    { name: string },
    { name: string },
    { name: string },
  ];

  it("computes only what a sequence appended since its last call, values in order", () => {
    const { computed, map } = counting();
    expect(map([a, b])).toEqual(["a:0", "b:1"]);
    expect(map([a, b, c])).toEqual(["a:0", "b:1", "c:2"]);
    expect(computed).toEqual(["a@0", "b@1", "c@2"]);
  });

  it("hands back the very values it computed (identity), and tells what it holds", () => {
    const memo = new SequenceMemo<{ name: string }, object>();
    const first = memo.map([a, b], (k) => ({ of: k.name }));
    const second = memo.map([a, b, c], (k) => ({ of: k.name }));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(memo.held([a, b, c], 2)).toBe(second[2]);
    expect(memo.held([a, d], 1)).toBeUndefined();
    expect(memo.held([d], 0)).toBeUndefined();
  });

  it("keeps what a shorter prefix did not use, and recomputes from where a sequence differs", () => {
    const { computed, map } = counting();
    map([a, b, c]);
    map([a, b]);
    expect(computed).toEqual(["a@0", "b@1", "c@2"]);
    expect(map([a, b, c])).toEqual(["a:0", "b:1", "c:2"]);
    expect(computed).toHaveLength(3);
    expect(map([a, d, c])).toEqual(["a:0", "d:1", "c:2"]);
    expect(computed).toEqual(["a@0", "b@1", "c@2", "d@1"]);
    // What follows a difference is held for the new sequence: nothing of the old one is kept.
    expect(map([a, b, c])).toEqual(["a:0", "b:1", "c:2"]);
    expect(computed.slice(4)).toEqual(["b@1"]);
  });

  it("computes an element that moved to another index again (values may name their index)", () => {
    const { computed, map } = counting();
    map([a, b]);
    expect(map([b])).toEqual(["b:0"]);
    expect(computed).toEqual(["a@0", "b@1", "b@0"]);
  });

  it("never holds a value for an element that is not frozen", () => {
    const { computed, map } = counting();
    const open = { name: "open" };
    map([a, open, b]);
    map([a, open, b]);
    expect(computed).toEqual(["a@0", "open@1", "b@2", "open@1"]);
    // No frozen element at all: nothing is held.
    map([open]);
    map([open]);
    expect(computed.slice(4)).toEqual(["open@0", "open@0"]);
  });

  it("keeps one chain per sequence, found by its first frozen element", () => {
    const { computed, map } = counting();
    map([a, b]);
    map([c, d]);
    map([a, b]);
    map([c, d]);
    expect(computed).toEqual(["a@0", "b@1", "c@0", "d@1"]);
  });

  it("holds the chains of the sequences mapped most recently only, up to maxSequences", () => {
    const computed: string[] = [];
    const memo = new SequenceMemo<{ name: string }, string>({ maxSequences: 2 });
    const map = (keys: readonly { name: string }[]) =>
      memo.map(keys, (k, index) => {
        computed.push(`${k.name}@${index}`);
        return `${k.name}:${index}`;
      });
    const [e, f] = [key("e"), key("f")];
    map([a, b]);
    map([c, d]);
    // Mapping [a, b] again makes it the most recent: [c, d] is the oldest when [e, f] comes.
    map([a, b]);
    map([e, f]);
    expect(computed).toEqual(["a@0", "b@1", "c@0", "d@1", "e@0", "f@1"]);
    expect(memo.held([a, b], 1)).toBe("b:1");
    expect(memo.held([c, d], 1)).toBeUndefined();
    // The dropped sequence is computed again, once, and pushes out the least recent ([a, b]).
    expect(map([c, d])).toEqual(["c:0", "d:1"]);
    map([c, d]);
    expect(computed.slice(6)).toEqual(["c@0", "d@1"]);
    expect(memo.held([a, b], 0)).toBeUndefined();
    expect(memo.held([e, f], 0)).toBe("e:0");
  });
});
