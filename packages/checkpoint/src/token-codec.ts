import { createHmac, timingSafeEqual } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { CheckpointError } from "./checkpoint-error.js";

// Shared pieces of the portable token formats: strict base64url, the MAC and bounded inflation.
// A token is `cp<version>.<part>.<part>...`: base64url never contains '.', so the token is safe
// in URLs, headers and JSON strings without escaping.

export const tokenPartSeparator = ".";
const versionPartPattern = /^cp([1-9][0-9]{0,5})$/;
const base64UrlPattern = /^[A-Za-z0-9_-]*$/;

/** Signing secrets shorter than this are refused: HMAC is only as strong as its key. */
export const minimumSecretBytes = 16;

/** Default cap on the token length and on the decompressed size of its content. */
export const defaultMaxCheckpointBytes = 64 * 1024 * 1024;

export function versionPart(version: number): string {
  return `cp${version}`;
}

/** The version a token claims, or undefined when its first part is not a version tag. */
export function parseVersionPart(part: string): number | undefined {
  const match = versionPartPattern.exec(part);
  return match === null ? undefined : Number(match[1]);
}

export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

/** Length of the unpadded base64url text of `byteLength` bytes. */
export function base64UrlLength(byteLength: number): number {
  const remainder = byteLength % 3;
  return Math.floor(byteLength / 3) * 4 + (remainder === 0 ? 0 : remainder + 1);
}

/**
 * Strict base64url: only the alphabet, no padding, and only the canonical text of its bytes.
 * Node's decoder skips invalid characters and ignores the unused low bits of the last character,
 * so without the round trip check some altered tokens would decode to the same bytes.
 */
export function decodeBase64Url(text: string, what: string): Buffer {
  const bytes = base64UrlPattern.test(text) ? Buffer.from(text, "base64url") : undefined;
  if (bytes === undefined || bytes.toString("base64url") !== text) {
    throw new CheckpointError({ reason: "malformed", message: `${what} is not base64url` });
  }
  return bytes;
}

/**
 * Lenient base64url decoding, for computing a MAC before anything else is checked: one linear
 * pass, no pattern match, no round trip. Whatever it decodes is only trusted once the MAC
 * verifies, and then `decodeBase64Url`'s strict checks still run on the same text.
 */
export function decodeBase64UrlForMac(text: string): Buffer {
  return Buffer.from(text, "base64url");
}

/**
 * The parts of `token` that follow its version tag, up to `maxParts` of them, found with
 * `indexOf` (a token is never split whole before it is authenticated); undefined when the token
 * has more parts than that.
 */
export function tokenParts(token: string, maxParts: number): string[] | undefined {
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const end = token.indexOf(tokenPartSeparator, start);
    parts.push(end === -1 ? token.slice(start) : token.slice(start, end));
    if (end === -1) return parts;
    if (parts.length > maxParts) return undefined;
    start = end + 1;
  }
}

export function secretKey(secret: string | Uint8Array): Buffer {
  const key = typeof secret === "string" ? Buffer.from(secret, "utf8") : Buffer.from(secret);
  if (key.byteLength < minimumSecretBytes) {
    throw new CheckpointError({
      reason: "invalid-secret",
      message: `the checkpoint secret must be at least ${minimumSecretBytes} bytes`,
    });
  }
  return key;
}

/**
 * HMAC-SHA256 over a version label, the audience (length-prefixed, so no audience is a prefix of
 * another) and the authenticated content. A token minted for another tenant or format version
 * therefore fails exactly like a tampered one.
 */
export function computeMac({
  key,
  version,
  audience,
  content,
}: {
  key: Buffer;
  version: number;
  audience: string;
  content: Uint8Array;
}): Buffer {
  const audienceBytes = Buffer.from(audience, "utf8");
  const audienceLength = Buffer.alloc(4);
  audienceLength.writeUInt32BE(audienceBytes.byteLength);
  return createHmac("sha256", key)
    .update(`cursor.checkpoint.v${version}\n`)
    .update(audienceLength)
    .update(audienceBytes)
    .update(content)
    .digest();
}

export function verifyMac({
  key,
  version,
  audience,
  content,
  mac,
}: {
  key: Buffer;
  version: number;
  audience: string;
  content: Uint8Array;
  mac: Buffer;
}): void {
  const expected = computeMac({ key, version, audience, content });
  if (mac.byteLength !== expected.byteLength || !timingSafeEqual(mac, expected)) {
    throw new CheckpointError({
      reason: "bad-mac",
      message: "the checkpoint signature does not verify (tampered, or another secret or audience)",
    });
  }
}

/**
 * Inflates at most `maxOutput` bytes. zlib stops at the limit instead of allocating whatever a
 * crafted stream expands to, so a small token cannot exhaust memory.
 */
export function inflateBounded({
  bytes,
  maxOutput,
  what,
  overflow,
}: {
  bytes: Uint8Array;
  maxOutput: number;
  what: string;
  /** The reason to report when the content inflates past `maxOutput`. */
  overflow: "too-large" | "malformed";
}): Buffer {
  try {
    // zlib refuses a maxOutputLength of 0; an empty stream still needs a few bytes of output room.
    return inflateRawSync(bytes, { maxOutputLength: Math.max(1, maxOutput) });
  } catch (cause) {
    const code =
      typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined;
    const exceeded = code === "ERR_BUFFER_TOO_LARGE";
    throw new CheckpointError({
      reason: exceeded ? overflow : "malformed",
      message: exceeded
        ? `${what} inflates beyond ${maxOutput} bytes`
        : `${what} is not a valid deflate stream`,
      cause,
    });
  }
}
