import { describe, expect, it } from "vitest";
import {
  bidiAppend,
  bidiRequestId,
  envelope,
  execResultMessage,
  heartbeatMessage,
  runRequestMessage,
} from "./e2e/cursor-messages.js";
import { peekAppend, runSseRequestId, unwrapSingleMessage } from "./wire-peek.js";

function append(message: Uint8Array, seqno = 0): Uint8Array {
  return bidiAppend({ requestId: "req-1", seqno, message });
}

describe("runSseRequestId", () => {
  it("reads BidiRequestId raw and in one Connect envelope", () => {
    expect(runSseRequestId(bidiRequestId("7f3c-run"))).toBe("7f3c-run");
    expect(runSseRequestId(envelope(bidiRequestId("7f3c-run")))).toBe("7f3c-run");
  });

  it("answers undefined for what is not one message", () => {
    expect(runSseRequestId(new Uint8Array())).toBeUndefined();
    expect(runSseRequestId(bidiRequestId(""))).toBeUndefined();
    // an envelope whose length is not the rest of the body, and a compressed envelope
    expect(
      runSseRequestId(Buffer.concat([envelope(bidiRequestId("a")), Buffer.from([1])])),
    ).toBeUndefined();
    expect(runSseRequestId(envelope(bidiRequestId("a"), 1))).toBeUndefined();
    expect(runSseRequestId(Buffer.from([0x0a, 0x09, 0x61]))).toBeUndefined();
  });

  it("unwrapSingleMessage keeps a raw message as it is", () => {
    const raw = bidiRequestId("x");
    expect(unwrapSingleMessage(raw)).toBe(raw);
  });
});

describe("peekAppend", () => {
  it("finds the requested model of a run request", () => {
    const message = runRequestMessage({
      conversationId: "c-1",
      model: { requestedModel: "byok-gpt-5" },
    });
    expect(peekAppend(append(message))).toEqual({
      requestId: "req-1",
      runRequest: { modelId: "byok-gpt-5" },
    });
    expect(peekAppend(envelope(append(message)))).toEqual({
      requestId: "req-1",
      runRequest: { modelId: "byok-gpt-5" },
    });
  });

  it("strips a variant suffix only when the variant flag is set", () => {
    const variant = (id: string, flag: boolean) =>
      peekAppend(
        append(
          runRequestMessage({ conversationId: "c", model: { requestedModel: id, variant: flag } }),
        ),
      )?.runRequest?.modelId;
    expect(variant("byok-gpt-5:high", true)).toBe("byok-gpt-5");
    expect(variant("5f0e[context=200k,reasoning=high]", true)).toBe("5f0e");
    expect(variant("byok:gpt-5", false)).toBe("byok:gpt-5");
  });

  it("falls back to model_details, and to an empty id without any selection", () => {
    expect(
      peekAppend(
        append(runRequestMessage({ conversationId: "c", model: { modelDetails: "claude" } })),
      ),
    ).toEqual({ requestId: "req-1", runRequest: { modelId: "claude" } });
    expect(
      peekAppend(append(runRequestMessage({ conversationId: "c", model: { none: true } }))),
    ).toEqual({ requestId: "req-1", runRequest: { modelId: "" } });
  });

  it("reports appends that are not run requests without a model", () => {
    expect(peekAppend(append(heartbeatMessage(), 3))).toEqual({ requestId: "req-1" });
    expect(
      peekAppend(append(execResultMessage({ id: 4, payload: Buffer.from("result") }), 2)),
    ).toEqual({ requestId: "req-1" });
  });

  it("answers undefined without a request id, and ignores undecodable data", () => {
    expect(peekAppend(Buffer.from("not protobuf"))).toBeUndefined();
    expect(peekAppend(new Uint8Array())).toBeUndefined();
    const badHex = Buffer.concat([
      Buffer.from([0x0a, 0x03]),
      Buffer.from("zz1"),
      Buffer.from([0x12, 0x07]),
      bidiRequestId("req-9"),
    ]);
    expect(peekAppend(badHex)).toEqual({ requestId: "req-9" });
  });
});
