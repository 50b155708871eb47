import { createHash } from "node:crypto";
import { ConnectError } from "./connect/connect-error.js";

const hexPattern = /^(?:[0-9a-fA-F]{2})*$/;

/** Decodes hex (the BidiAppend `data` field); anything that is not whole bytes of hex is refused. */
export function decodeHex(text: string, what: string): Uint8Array {
  if (!hexPattern.test(text)) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `${what} is not hex (an even number of 0-9a-f digits)`,
    });
  }
  return new Uint8Array(Buffer.from(text, "hex"));
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
