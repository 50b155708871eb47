import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import {
  base64UrlLength,
  computeMac,
  decodeBase64Url,
  encodeBase64Url,
  inflateBounded,
  parseVersionPart,
  secretKey,
  verifyMac,
} from "./token-codec.js";

const key = secretKey("k".repeat(32));

describe("strict base64url", () => {
  it("round trips bytes and predicts the text length", () => {
    for (let length = 0; length <= 10; length += 1) {
      const bytes = Buffer.from(Array.from({ length }, (_, index) => (index * 37 + 250) % 256));
      const text = encodeBase64Url(bytes);
      expect(text).toHaveLength(base64UrlLength(length));
      expect(decodeBase64Url(text, "x")).toEqual(bytes);
    }
  });

  it("refuses padding, the standard alphabet, stray characters and non-canonical text", () => {
    expect(encodeBase64Url(Buffer.from([0]))).toBe("AA");
    for (const text of ["AA==", "+/8", "A A", "AA\n", "A", "AB", "AAB", "é"]) {
      expectReason(() => decodeBase64Url(text, "x"), "malformed");
    }
  });
});

describe("version tags", () => {
  it("reads cp<n> and nothing else", () => {
    expect(parseVersionPart("cp1")).toBe(1);
    expect(parseVersionPart("cp2")).toBe(2);
    expect(parseVersionPart("cp123456")).toBe(123456);
    for (const part of ["cp", "cp0", "cp01", "cp1234567", "CP2", "cp2 ", "xp2", ""]) {
      expect(parseVersionPart(part)).toBeUndefined();
    }
  });
});

describe("MAC", () => {
  const content = Buffer.from("header");

  it("binds the version, the audience and the content", () => {
    const mac = computeMac({ key, version: 2, audience: "tenant-a", content });
    expect(mac).toHaveLength(32);
    verifyMac({ key, version: 2, audience: "tenant-a", content, mac });
    expectReason(
      () => verifyMac({ key, version: 2, audience: "tenant-b", content, mac }),
      "bad-mac",
    );
    expectReason(
      () => verifyMac({ key, version: 1, audience: "tenant-a", content, mac }),
      "bad-mac",
    );
    expectReason(
      () =>
        verifyMac({
          key: secretKey("q".repeat(32)),
          version: 2,
          audience: "tenant-a",
          content,
          mac,
        }),
      "bad-mac",
    );
    expectReason(
      () => verifyMac({ key, version: 2, audience: "tenant-a", content, mac: mac.subarray(0, 31) }),
      "bad-mac",
    );
  });

  it("length-prefixes the audience so audience and content cannot trade bytes", () => {
    const a = computeMac({ key, version: 2, audience: "ab", content: Buffer.from("c") });
    const b = computeMac({ key, version: 2, audience: "a", content: Buffer.from("bc") });
    expect(a.equals(b)).toBe(false);
  });

  it("refuses secrets shorter than 16 bytes", () => {
    expectReason(() => secretKey("short"), "invalid-secret");
    expectReason(() => secretKey(new Uint8Array(15)), "invalid-secret");
    expect(secretKey(new Uint8Array(16))).toHaveLength(16);
  });
});

describe("bounded inflation", () => {
  const bomb = deflateRawSync(Buffer.alloc(1_000_000));

  it("stops at the limit and reports the chosen reason", () => {
    expect(bomb.byteLength).toBeLessThan(2_000);
    expectReason(
      () => inflateBounded({ bytes: bomb, maxOutput: 1000, what: "x", overflow: "too-large" }),
      "too-large",
    );
    expectReason(
      () => inflateBounded({ bytes: bomb, maxOutput: 1000, what: "x", overflow: "malformed" }),
      "malformed",
    );
    expect(
      inflateBounded({ bytes: bomb, maxOutput: 1_000_000, what: "x", overflow: "too-large" }),
    ).toHaveLength(1_000_000);
  });

  it("reports garbage and cut streams as malformed", () => {
    expectReason(
      () =>
        inflateBounded({
          bytes: Buffer.from("not deflate"),
          maxOutput: 99,
          what: "x",
          overflow: "too-large",
        }),
      "malformed",
    );
    expectReason(
      () =>
        inflateBounded({
          bytes: deflateRawSync(Buffer.from("hello world ".repeat(50))).subarray(0, 10),
          maxOutput: 10_000,
          what: "x",
          overflow: "too-large",
        }),
      "malformed",
    );
  });
});
