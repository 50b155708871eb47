import { createHash } from "node:crypto";
import { ConnectError } from "./connect/connect-error.js";

/** Decodes hex (the BidiAppend `data` field); anything that is not whole bytes of hex is refused. */
export function decodeHex(text: string, what: string): Uint8Array {
  // Buffer stops at the first pair that is not hex, so a short result means a bad character.
  const bytes = Buffer.from(text, "hex");
  if (text.length % 2 !== 0 || bytes.length * 2 !== text.length) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} is not hex (an even number of 0-9a-f digits)`,
    });
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

export function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/** SHA-256 of bytes: a blob's id (facts §3.8). */
export function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(bytes).digest());
}
