import { sha256Hex } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { catchCheckpointError, expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { decodeSegmentContent, encodeSegmentContent } from "./token-segment.js";

const blob = (text: string) => {
  const bytes = Buffer.from(text, "utf8");
  return { id: sha256Hex(bytes), bytes };
};

describe("segment content", () => {
  it("lays out count, ids, lengths and blobs, and reads them back", () => {
    const blobs = [blob('{"a":1}'), blob(""), blob("ünïcode")];
    const content = encodeSegmentContent(blobs);
    expect(content.readUInt32BE(0)).toBe(3);
    expect(content.subarray(4, 36).toString("hex")).toBe(blobs[0]!.id);
    expect(content.readUInt32BE(4 + 3 * 32)).toBe(7);
    expect(content.byteLength).toBe(4 + 3 * 36 + 7 + 0 + 9);
    expect(decodeSegmentContent(content, "s")).toEqual(blobs);
    expect(decodeSegmentContent(encodeSegmentContent([]), "s")).toEqual([]);
  });

  it("refuses a blob that is not its id", () => {
    const content = encodeSegmentContent([blob("one"), blob("two")]);
    content[content.byteLength - 1]! ^= 1;
    const error = catchCheckpointError(() => decodeSegmentContent(content, "s"));
    expect(error.reason).toBe("blob-mismatch");
    expect(error.objectId).toBe(blob("two").id);
  });

  it("refuses broken layouts", () => {
    const content = encodeSegmentContent([blob("one")]);
    expectReason(() => decodeSegmentContent(Buffer.alloc(3), "s"), "malformed");
    expectReason(() => decodeSegmentContent(content.subarray(0, 20), "s"), "malformed");
    expectReason(
      () => decodeSegmentContent(content.subarray(0, content.byteLength - 1), "s"),
      "malformed",
    );
    expectReason(
      () => decodeSegmentContent(Buffer.concat([content, Buffer.from("x")]), "s"),
      "malformed",
    );
    const huge = Buffer.from(content);
    huge.writeUInt32BE(0xffffffff, 0);
    expectReason(() => decodeSegmentContent(huge, "s"), "malformed");
  });
});
