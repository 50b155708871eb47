import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./canonical-json.js";
import { DigestTable } from "./digest-table.js";

describe("DigestTable", () => {
  it("gives back exactly the hex it was given, in order, while it grows", () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 200 }), (texts) => {
        const table = new DigestTable();
        const digests = texts.map((text) => sha256Hex(text));
        digests.forEach((digest) => table.push(digest));
        expect(table.length).toBe(digests.length);
        digests.forEach((digest, index) => expect(table.at(index)).toBe(digest));
        expect(table.slice()).toEqual(digests);
        expect(table.slice(3, 7)).toEqual(digests.slice(3, 7));
        expect(table.slice(5)).toEqual(digests.slice(5));
        expect(table.slice(digests.length + 3)).toEqual([]);
      }),
    );
  });

  it("answers undefined past its end and for a position that is not an index", () => {
    const table = new DigestTable();
    table.push(sha256Hex("a"));
    expect(table.at(1)).toBeUndefined();
    expect(table.at(-1)).toBeUndefined();
    expect(table.at(0.5)).toBeUndefined();
    expect(new DigestTable().at(0)).toBeUndefined();
  });

  it("refuses what would not come back byte-identical", () => {
    const table = new DigestTable();
    expect(() => table.push(sha256Hex("a").toUpperCase())).toThrow(TypeError);
    expect(() => table.push("abc")).toThrow(TypeError);
    expect(() => table.push(`${sha256Hex("a")}0`)).toThrow(TypeError);
    expect(() => table.push("z".repeat(64))).toThrow(TypeError);
    expect(table.length).toBe(0);
  });

  it("holds 32 bytes per digest, with at most half as much again spare", () => {
    const table = new DigestTable();
    for (let index = 0; index < 5000; index += 1) table.push(sha256Hex(String(index)));
    expect(table.bytes).toBeGreaterThanOrEqual(32 * 5000);
    expect(table.bytes).toBeLessThanOrEqual(1.5 * 32 * 5000 + 32);
    expect(table.at(4321)).toBe(sha256Hex("4321"));
  });
});
