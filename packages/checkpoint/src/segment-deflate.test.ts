import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { deflateSegment, segmentDeflateOptions } from "./segment-deflate.js";

// Deterministic message-like JSON: repeated keys, prose from a small vocabulary, random ids.
function messages({ seed, count }: { seed: number; count: number }): Buffer {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const words = "the model reads a file and calls a tool then answers with the result of it".split(
    " ",
  );
  const text = (length: number) =>
    Array.from({ length }, () => words[Math.floor(next() * words.length)]).join(" ");
  return Buffer.from(
    Array.from({ length: count }, (_, index) =>
      JSON.stringify({
        id: `msg_${Math.floor(next() * 1e12).toString(36)}`,
        role: ["user", "assistant", "tool"][index % 3],
        content: [{ type: "text", text: text(Math.floor(next() * 300)) }],
      }),
    ).join(""),
    "utf8",
  );
}

describe("segmentDeflateOptions", () => {
  it("sizes the window to reach the whole input and the symbol buffer to hold all of it", () => {
    for (const length of [0, 1, 250, 251, 2_000, 5_000, 32_000, 32_506, 40_000, 5_000_000]) {
      const { windowBits, memLevel } = segmentDeflateOptions(length);
      expect(windowBits).toBeGreaterThanOrEqual(9);
      expect(windowBits).toBeLessThanOrEqual(15);
      expect(memLevel).toBeGreaterThanOrEqual(1);
      expect(memLevel).toBeLessThanOrEqual(8);
      if (windowBits < 15) expect(2 ** windowBits - 262).toBeGreaterThanOrEqual(length);
      if (memLevel < 8) expect(2 ** (memLevel + 6)).toBeGreaterThanOrEqual(length);
    }
    expect(segmentDeflateOptions(100)).toEqual({ windowBits: 9, memLevel: 1 });
    expect(segmentDeflateOptions(2_000)).toEqual({ windowBits: 12, memLevel: 5 });
    // Long inputs get zlib's defaults.
    expect(segmentDeflateOptions(100_000)).toEqual({ windowBits: 15, memLevel: 8 });
  });
});

describe("deflateSegment", () => {
  it("inflates back with a default raw inflater and is no larger than zlib's defaults make it", () => {
    for (let seed = 1; seed <= 60; seed += 1) {
      const content = messages({ seed, count: 1 + (seed % 32) });
      const compressed = deflateSegment(content);
      expect(inflateRawSync(compressed).equals(content)).toBe(true);
      expect(compressed.byteLength).toBeLessThanOrEqual(deflateRawSync(content).byteLength);
    }
    expect(inflateRawSync(deflateSegment(Buffer.alloc(0))).byteLength).toBe(0);
  });
});
