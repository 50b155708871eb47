import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { appendBody, runRequestMessage } from "./__fixtures__/raw-wire.js";
import { encodeEnvelope } from "./connect/envelope.js";
import { peekRunRequest } from "./peek-run-request.js";

describe("peekRunRequest", () => {
  it("reads the request id and the requested model of a run request", () => {
    const body = appendBody({
      requestId: "r-1",
      seqno: 0,
      message: {
        message: {
          case: "runRequest",
          value: { conversationId: "c-1", requestedModel: { modelId: "byok-claude" } },
        },
      },
    });
    expect(peekRunRequest(body)).toEqual({
      requestId: "r-1",
      appendSeqno: 0n,
      runRequest: { conversationId: "c-1", modelId: "byok-claude", isDefaultModel: false },
    });
    expect(peekRunRequest(encodeEnvelope({ payload: body }))).toEqual(peekRunRequest(body));
    expect(
      peekRunRequest(new Uint8Array(gzipSync(body)), { headers: { "content-encoding": "gzip" } }),
    ).toEqual(peekRunRequest(body));
  });

  it("flags the default model and returns no run request for other appends", () => {
    expect(
      peekRunRequest(
        appendBody({
          requestId: "r-1",
          seqno: 0,
          message: runRequestMessage({ conversationId: "c" }),
        }),
      ).runRequest,
    ).toEqual({ conversationId: "c", modelId: "", isDefaultModel: true });
    expect(
      peekRunRequest(
        appendBody({
          requestId: "r-1",
          seqno: 3,
          message: { message: { case: "clientHeartbeat", value: {} } },
        }),
      ),
    ).toEqual({ requestId: "r-1", appendSeqno: 3n });
  });

  it("throws invalid_argument for a body that is not a BidiAppendRequest", () => {
    expect(() => peekRunRequest(new Uint8Array([0x0a, 0xff]))).toThrow(/^not a BidiAppendRequest/);
    expect(() => peekRunRequest(appendBody({ requestId: "r", seqno: 0, data: "xyz" }))).toThrow(
      /is not hex/,
    );
  });
});
