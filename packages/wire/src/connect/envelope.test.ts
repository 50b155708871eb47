import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConnectError } from "./connect-error.js";
import { EnvelopeDecoder, encodeEnvelope, envelopeFlags, maxEnvelopeBytes } from "./envelope.js";

const bytes = (...values: number[]) => new Uint8Array(values);

function expectConnectError(run: () => unknown, code: string, message: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(ConnectError.isInstance(thrown)).toBe(true);
  expect((thrown as ConnectError).code).toBe(code);
  expect((thrown as ConnectError).message).toMatch(message);
}

describe("Connect envelopes", () => {
  it("encodes a flag byte, a big-endian length and the payload", () => {
    expect(encodeEnvelope({ payload: bytes(7, 8, 9) })).toEqual(bytes(0, 0, 0, 0, 3, 7, 8, 9));
    expect(encodeEnvelope({ flags: envelopeFlags.endStream, payload: bytes() })).toEqual(
      bytes(2, 0, 0, 0, 0),
    );
  });

  it("decodes frames however the bytes are chunked (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 20 }),
        (payloads, cuts) => {
          const stream = Buffer.concat(payloads.map((payload) => encodeEnvelope({ payload })));
          const decoder = new EnvelopeDecoder();
          const frames = [];
          let offset = 0;
          let cut = 0;
          while (offset < stream.length) {
            const size = cuts[cut % cuts.length]!;
            cut += 1;
            frames.push(...decoder.push(new Uint8Array(stream.subarray(offset, offset + size))));
            offset += size;
          }
          decoder.end();
          expect(frames.map((frame) => [...frame.payload])).toEqual(payloads.map((p) => [...p]));
        },
      ),
    );
  });

  it("yields several frames from one chunk and keeps a partial one for the next", () => {
    const decoder = new EnvelopeDecoder();
    const two = Buffer.concat([
      encodeEnvelope({ payload: bytes(1) }),
      encodeEnvelope({ flags: envelopeFlags.endStream, payload: bytes(2, 3) }),
    ]);
    const third = encodeEnvelope({ payload: bytes(4, 5, 6) });
    const frames = decoder.push(new Uint8Array([...two, ...third.subarray(0, 6)]));
    expect(frames).toEqual([
      { flags: 0, payload: bytes(1) },
      { flags: 2, payload: bytes(2, 3) },
    ]);
    expect(decoder.pendingBytes).toBe(6);
    expect(decoder.push(third.subarray(6))).toEqual([{ flags: 0, payload: bytes(4, 5, 6) }]);
  });

  it("refuses a frame over 64 MiB as soon as its header arrives (resource_exhausted)", () => {
    const decoder = new EnvelopeDecoder();
    const header = new Uint8Array(5);
    new DataView(header.buffer).setUint32(1, maxEnvelopeBytes + 1, false);
    expectConnectError(
      () => decoder.push(header),
      "resource_exhausted",
      /exceeds the limit of 67108864 bytes/,
    );
  });

  it("refuses a compressed frame without a negotiated encoding, and gunzips with gzip", () => {
    const compressed = encodeEnvelope({
      flags: envelopeFlags.compressed,
      payload: new Uint8Array(gzipSync(bytes(1, 2, 3))),
    });
    expectConnectError(
      () => new EnvelopeDecoder().push(compressed),
      "invalid_argument",
      /compressed envelope arrived but no content encoding was negotiated/,
    );
    expect(new EnvelopeDecoder({ compression: "gzip" }).push(compressed)).toEqual([
      { flags: envelopeFlags.compressed, payload: bytes(1, 2, 3) },
    ]);
    expectConnectError(
      () =>
        new EnvelopeDecoder({ compression: "gzip" }).push(
          encodeEnvelope({ flags: envelopeFlags.compressed, payload: bytes(9, 9, 9) }),
        ),
      "invalid_argument",
      /not valid gzip/,
    );
  });

  it("reports a body that ends inside a frame", () => {
    const decoder = new EnvelopeDecoder();
    decoder.push(encodeEnvelope({ payload: bytes(1, 2, 3) }).subarray(0, 6));
    expectConnectError(
      () => decoder.end(),
      "invalid_argument",
      /ends inside an envelope \(6 bytes left over\)/,
    );
  });
});
