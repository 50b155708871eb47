import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ConnectError } from "./connect-error.js";
import { encodeEnvelope } from "./envelope.js";
import { singleMessageBytes, unaryMessageBytes } from "./request-body.js";

const message = new Uint8Array([0x0a, 0x02, 0x68, 0x69]);

describe("request bodies", () => {
  it("takes a unary body as raw protobuf or as one envelope", () => {
    expect(unaryMessageBytes({ body: message, headers: {} })).toEqual(message);
    expect(unaryMessageBytes({ body: encodeEnvelope({ payload: message }), headers: {} })).toEqual(
      message,
    );
  });

  it("undoes HTTP gzip and refuses other content encodings", () => {
    const gzipped = new Uint8Array(gzipSync(message));
    expect(unaryMessageBytes({ body: gzipped, headers: { "content-encoding": "gzip" } })).toEqual(
      message,
    );
    expect(() =>
      unaryMessageBytes({ body: message, headers: { "content-encoding": "br" } }),
    ).toThrow(/content-encoding br is not supported/);
  });

  it("takes the RunSSE body as one envelope (connect+proto) or raw", () => {
    expect(
      singleMessageBytes({
        body: encodeEnvelope({ payload: message }),
        headers: { "content-type": "application/connect+proto" },
      }),
    ).toEqual(message);
    expect(
      singleMessageBytes({ body: message, headers: { "content-type": "application/proto" } }),
    ).toEqual(message);
    let thrown: unknown;
    try {
      singleMessageBytes({
        body: new Uint8Array([
          ...encodeEnvelope({ payload: message }),
          ...encodeEnvelope({ payload: message }),
        ]),
        headers: { "content-type": "application/connect+proto" },
      });
    } catch (error) {
      thrown = error;
    }
    expect(ConnectError.isInstance(thrown) && thrown.code).toBe("invalid_argument");
    expect((thrown as Error).message).toBe("expected one message envelope, got 2");
  });
});
