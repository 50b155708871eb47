import { describe, expect, it } from "vitest";
import { chainLink, LinkChain } from "./link-chain.js";

const preamble = chainLink("", "preamble");
const item = (text: string) => Object.freeze({ text });

// The chain as defined, from scratch.
function reference(sources: readonly { text: string }[], from = preamble): string[] {
  const links = [from];
  for (const source of sources) links.push(chainLink(links.at(-1)!, JSON.stringify(source)));
  return links;
}

function linker(chain: LinkChain) {
  const hashed: number[] = [];
  return {
    hashed,
    link: (sources: readonly { text: string }[], roles?: readonly unknown[], first = preamble) =>
      chain.link({
        preamble: first,
        sources,
        roles,
        item: (index) => {
          hashed.push(index);
          return JSON.stringify(sources[index]);
        },
      }),
  };
}

const all = (view: { length: number; at: (k: number) => string | undefined }) =>
  Array.from({ length: view.length }, (_, k) => view.at(k));

describe("LinkChain", () => {
  const a = item("a");
  const b = item("b");
  const c = item("c");

  it("hashes only the items appended since its last prompt; the links are the chain's", () => {
    const chain = new LinkChain();
    const { hashed, link } = linker(chain);
    expect(all(link([a, b]))).toEqual(reference([a, b]));
    expect(hashed).toEqual([0, 1]);
    hashed.length = 0;
    expect(all(link([a, b, c]))).toEqual(reference([a, b, c]));
    expect(hashed).toEqual([2]);
    expect(chain.items).toBe(3);
  });

  it("goes on past a fresh copy with the same bytes, and starts over where bytes differ", () => {
    const chain = new LinkChain();
    const { hashed, link } = linker(chain);
    link([a, b, c]);
    hashed.length = 0;
    // A fresh copy of b (an Anthropic block without its marker): hashed, then c is the chain's.
    expect(all(link([a, { text: "b" }, c]))).toEqual(reference([a, b, c]));
    expect(hashed).toEqual([1]);
    hashed.length = 0;
    // The copy is now what the chain holds; b itself is hashed again, and the chain goes on.
    expect(all(link([a, b, c]))).toEqual(reference([a, b, c]));
    expect(hashed).toEqual([1]);
    hashed.length = 0;
    expect(all(link([a, c, b]))).toEqual(reference([a, c, b]));
    expect(hashed).toEqual([1, 2]);
  });

  it("starts over for another preamble, and tells roles apart", () => {
    const chain = new LinkChain();
    const { hashed, link } = linker(chain);
    link([a, b], ["user", "user"]);
    hashed.length = 0;
    link([a, b], ["user", "assistant"]);
    expect(hashed).toEqual([1]);
    hashed.length = 0;
    const other = chainLink("", "other preamble");
    expect(all(link([a, b], ["user", "assistant"], other))).toEqual(reference([a, b], other));
    expect(hashed).toEqual([0, 1]);
  });

  it("never changes a view it returned: a later prompt that is shorter or differs copies", () => {
    const chain = new LinkChain();
    const { link } = linker(chain);
    const long = link([a, b, c]);
    const expected = reference([a, b, c]);
    link([a]);
    link([a, c, c, c, c, c, c, c, c, c, c]);
    link([b]);
    expect(all(long)).toEqual(expected);
    expect(long.at(4)).toBeUndefined();
  });

  it("extends in place while only appending, growing its buffer", () => {
    const chain = new LinkChain();
    const { link } = linker(chain);
    const sources: { text: string }[] = [];
    const views = [];
    for (let n = 0; n < 40; n += 1) {
      sources.push(item(`i${n}`));
      views.push(link([...sources]));
    }
    views.forEach((view, n) => expect(all(view)).toEqual(reference(sources.slice(0, n + 1))));
  });
});
