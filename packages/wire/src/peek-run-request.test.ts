import { gzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { appendBody, runRequestMessage } from "./__fixtures__/raw-wire.js";
import { ConnectError } from "./connect/connect-error.js";
import { encodeEnvelope } from "./connect/envelope.js";
import { BidiRequestIdSchema } from "./gen/aiserver_v1_pb.js";
import { peekRunRequest, peekRunSse } from "./peek-run-request.js";

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

describe("peekRunSse", () => {
  it("reads the request id of a raw or enveloped RunSSE body; refuses one without", () => {
    const raw = toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId: "r-9" }));
    expect(peekRunSse(raw)).toEqual({ requestId: "r-9" });
    expect(peekRunSse(encodeEnvelope({ payload: raw }))).toEqual({ requestId: "r-9" });
    expect(() => peekRunSse(new Uint8Array())).toThrow(/names no request id/);
    expect(() => peekRunSse(new Uint8Array([0x0a, 0x05, 1]))).toThrow(ConnectError);
  });
});
