import { sha256Hex } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { packIds, unpackIds } from "./packed-ids.js";

describe("packIds", () => {
  it("packs blob ids 32 bytes each and gives back the exact hex, in order", () => {
    const ids = Array.from({ length: 33 }, (_, index) => sha256Hex(`blob ${index}`));
    const packed = packIds(ids);
    expect(packed.byteLength).toBe(32 * 33);
    expect(unpackIds(packed)).toEqual(ids);
    expect(unpackIds(packIds([]))).toEqual([]);
  });

  it("refuses an id that would not come back byte-identical", () => {
    expect(() => packIds([sha256Hex("a").toUpperCase()])).toThrow(TypeError);
    expect(() => packIds(["0".repeat(63)])).toThrow(TypeError);
  });
});
