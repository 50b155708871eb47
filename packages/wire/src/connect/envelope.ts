import { gunzipSync } from "node:zlib";
import { ConnectError } from "./connect-error.js";

/** Connect envelope flags (https://connectrpc.com/docs/protocol#streaming-request). */
export const envelopeFlags = Object.freeze({ compressed: 0x01, endStream: 0x02 });

/** The largest envelope payload accepted (facts §1.5: the client caps a frame at 64 MiB). */
export const maxEnvelopeBytes = 64 * 1024 * 1024;

export interface Envelope {
  readonly flags: number;
  /** The payload, decompressed when the frame was compressed. */
  readonly payload: Uint8Array;
}

/** One envelope: a flag byte, the 4-byte big-endian payload length, the payload. */
export function encodeEnvelope({
  flags = 0,
  payload,
}: {
  flags?: number;
  payload: Uint8Array;
}): Uint8Array {
  const frame = new Uint8Array(5 + payload.length);
  frame[0] = flags;
  new DataView(frame.buffer).setUint32(1, payload.length, false);
  frame.set(payload, 5);
  return frame;
}

export type EnvelopeCompression = "identity" | "gzip";

/**
 * Incremental envelope decoder: a chunk may hold part of a frame or several frames. Refuses a
 * frame whose declared length exceeds `maxPayloadBytes` as soon as its header arrives (before
 * buffering it) with `resource_exhausted`, and a compressed frame without a negotiated encoding
 * with `invalid_argument`.
 */
export class EnvelopeDecoder {
  readonly #maxPayloadBytes: number;
  readonly #compression: EnvelopeCompression;
  #chunks: Uint8Array[] = [];
  #buffered = 0;

  constructor({
    maxPayloadBytes = maxEnvelopeBytes,
    compression = "identity",
  }: { maxPayloadBytes?: number; compression?: EnvelopeCompression } = {}) {
    this.#maxPayloadBytes = maxPayloadBytes;
    this.#compression = compression;
  }

  /** Bytes received that do not yet form a whole frame. */
  get pendingBytes(): number {
    return this.#buffered;
  }

  push(chunk: Uint8Array): Envelope[] {
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const frames: Envelope[] = [];
    for (;;) {
      if (this.#buffered < 5) return frames;
      const header = this.#peek(5);
      const flags = header[0]!;
      const length = new DataView(header.buffer, header.byteOffset, 5).getUint32(1, false);
      if (length > this.#maxPayloadBytes) {
        throw new ConnectError({
          code: "resource_exhausted",
          message: `envelope of ${length} bytes exceeds the limit of ${this.#maxPayloadBytes} bytes`,
        });
      }
      if (this.#buffered < 5 + length) return frames;
      const frame = this.#take(5 + length);
      frames.push({ flags, payload: this.#decompress(flags, frame.subarray(5)) });
    }
  }

  /** The stream ended: a partial frame left over is a malformed body. */
  end(): void {
    if (this.#buffered > 0) {
      throw new ConnectError({
        code: "invalid_argument",
        message: `the body ends inside an envelope (${this.#buffered} bytes left over)`,
      });
    }
  }

  #decompress(flags: number, payload: Uint8Array): Uint8Array {
    if ((flags & envelopeFlags.compressed) === 0) return payload;
    if (this.#compression !== "gzip") {
      throw new ConnectError({
        code: "invalid_argument",
        message: "a compressed envelope arrived but no content encoding was negotiated",
      });
    }
    try {
      return new Uint8Array(gunzipSync(payload, { maxOutputLength: this.#maxPayloadBytes }));
    } catch (error) {
      throw new ConnectError({
        code: "invalid_argument",
        message: "a compressed envelope is not valid gzip or exceeds the size limit",
        cause: error,
      });
    }
  }

  #peek(count: number): Uint8Array {
    const first = this.#chunks[0]!;
    if (first.length >= count) return first.subarray(0, count);
    return this.#concat(count, false);
  }

  #take(count: number): Uint8Array {
    const first = this.#chunks[0]!;
    if (first.length < count) return this.#concat(count, true);
    // The common case (a frame inside one chunk) needs no copy.
    if (first.length === count) this.#chunks.shift();
    else this.#chunks[0] = first.subarray(count);
    this.#buffered -= count;
    return first.subarray(0, count);
  }

  #concat(count: number, consume: boolean): Uint8Array {
    const out = new Uint8Array(count);
    let offset = 0;
    let index = 0;
    while (offset < count) {
      const chunk = this.#chunks[index]!;
      const needed = count - offset;
      if (chunk.length <= needed) {
        out.set(chunk, offset);
        offset += chunk.length;
        index += 1;
      } else {
        out.set(chunk.subarray(0, needed), offset);
        offset += needed;
        if (consume) this.#chunks[index] = chunk.subarray(needed);
      }
    }
    if (consume) {
      this.#chunks.splice(0, index);
      this.#buffered -= count;
    }
    return out;
  }
}
