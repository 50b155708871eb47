import { fromBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorDetails_Error, ErrorDetailsSchema } from "../gen/aiserver_v1_pb.js";
import { ConnectError } from "./connect-error.js";
import { encodeEndStream, unaryErrorReply } from "./end-stream.js";
import { EnvelopeDecoder, envelopeFlags } from "./envelope.js";

function endStreamJson(frame: Uint8Array): unknown {
  const [envelope] = new EnvelopeDecoder().push(frame);
  expect(envelope!.flags).toBe(envelopeFlags.endStream);
  return JSON.parse(new TextDecoder().decode(envelope!.payload));
}

describe("end-stream frames and unary errors", () => {
  it("ends a successful stream with {}", () => {
    expect(endStreamJson(encodeEndStream())).toEqual({});
  });

  it("carries code, message and base64 aiserver.v1.ErrorDetails (facts §7)", () => {
    const error = new ConnectError({
      code: "unavailable",
      message: "upstream 503",
      detail: {
        kind: "provider-error",
        title: "Provider error",
        detail: "upstream 503",
        retryable: true,
      },
    });
    const json = endStreamJson(encodeEndStream(error)) as {
      error: { code: string; message: string; details: { type: string; value: string }[] };
    };
    expect(json.error.code).toBe("unavailable");
    expect(json.error.message).toBe("upstream 503");
    expect(json.error.details[0]!.type).toBe("aiserver.v1.ErrorDetails");
    expect(json.error.details[0]!.value).not.toMatch(/=$/);
    const details = fromBinary(
      ErrorDetailsSchema,
      Buffer.from(json.error.details[0]!.value, "base64"),
    );
    expect(details.error).toBe(ErrorDetails_Error.PROVIDER_ERROR);
    expect(details.details).toMatchObject({
      title: "Provider error",
      detail: "upstream 503",
      isRetryable: true,
    });
    expect(details.isExpected).toBe(false);
  });

  it("answers a unary error with the code's HTTP status and a JSON body", () => {
    const reply = unaryErrorReply(
      new ConnectError({ code: "not_found", message: "no such request" }),
    );
    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(new TextDecoder().decode(reply.body))).toEqual({
      code: "not_found",
      message: "no such request",
    });
  });
});
