import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ScriptedPorts } from "./__fixtures__/scripted-ports.js";
import {
  RecordingStream,
  appendBody,
  replyJson,
  runRequestMessage,
  tick,
} from "./__fixtures__/raw-wire.js";
import { encodeEnvelope, maxEnvelopeBytes } from "./connect/envelope.js";
import { createCursorWire } from "./cursor-wire.js";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "./gen/aiserver_v1_pb.js";
import { AgentMode } from "./gen/agent_v1_pb.js";
import { ManualTimers } from "./session/wire-timers.js";

function setup() {
  const timers = new ManualTimers();
  const service = new ScriptedPorts();
  const wire = createCursorWire({ ports: service.ports(), timers });
  // What reached the service: bad input never does (the server's end-to-end tests check that
  // its store stays byte-identical).
  const snapshot = () => JSON.stringify(service.bodies);
  return { timers, service, wire, snapshot };
}

async function append(wire: ReturnType<typeof setup>["wire"], body: Uint8Array) {
  return replyJson(await wire.bidiAppend({ headers: {}, body }));
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await tick();
  expect(condition()).toBe(true);
}

/** A conversation that ran once, so "nothing reached the service" has something to compare. */
async function withConversation() {
  const context = setup();
  const stream = new RecordingStream(context.wire, "seed", { answerKvFrom: 1 });
  await context.wire.bidiAppend({
    headers: {},
    body: appendBody({
      requestId: "seed",
      seqno: 0,
      message: runRequestMessage({ conversationId: "bad" }),
    }),
  });
  await stream.done;
  expect(stream.endJson).toEqual({});
  return { ...context, before: context.snapshot() };
}

describe("bad input: a precise Connect error each, nothing reaches the service", () => {
  it("a malformed RunSSE envelope", async () => {
    const { wire, snapshot, before } = await withConversation();
    const chunks: Uint8Array[] = [];
    await wire.runSse({
      headers: { "content-type": "application/connect+proto" },
      body: encodeEnvelope({ payload: new Uint8Array([0x0a, 0x01, 0x61]) }).subarray(0, 6),
      response: {
        start: () => undefined,
        write: (chunk) => chunks.push(chunk),
        end: () => undefined,
      },
    });
    const end = JSON.parse(new TextDecoder().decode(chunks[0]!.subarray(5)));
    expect(end.error).toEqual({
      code: "invalid_argument",
      message: "the body ends inside an envelope (6 bytes left over)",
    });
    expect(snapshot()).toBe(before);
  });

  it("RunSSE without a request id", async () => {
    const { wire } = setup();
    const stream = new RecordingStream(wire, "");
    await stream.done;
    expect(stream.endJson?.error).toEqual({
      code: "invalid_argument",
      message: "RunSSE needs a request id (BidiRequestId.request_id)",
    });
  });

  it("bad hex", async () => {
    const { wire, snapshot, before } = await withConversation();
    expect(await append(wire, appendBody({ requestId: "r-hex", seqno: 0, data: "0g" }))).toEqual({
      status: 400,
      code: "invalid_argument",
      message: "BidiAppendRequest.data is not hex (an even number of 0-9a-f digits)",
    });
    expect(
      await append(wire, appendBody({ requestId: "r-odd", seqno: 0, data: "abc" })),
    ).toMatchObject({
      code: "invalid_argument",
    });
    expect(snapshot()).toBe(before);
  });

  it("an undecodable BidiAppendRequest or AgentClientMessage", async () => {
    const { wire, snapshot, before } = await withConversation();
    expect(await append(wire, new Uint8Array([0x0a, 0xff, 0xff]))).toMatchObject({
      status: 400,
      code: "invalid_argument",
      message: expect.stringMatching(/^BidiAppendRequest could not be decoded/),
    });
    expect(
      await append(wire, appendBody({ requestId: "r-proto", seqno: 0, data: "0aff" })),
    ).toMatchObject({
      status: 400,
      code: "invalid_argument",
      message: expect.stringMatching(/^append 0's AgentClientMessage could not be decoded/),
    });
    expect(snapshot()).toBe(before);
  });

  it("a body or frame over 64 MiB", async () => {
    const { wire } = setup();
    expect(await append(wire, new Uint8Array(maxEnvelopeBytes + 6))).toEqual({
      status: 429,
      code: "resource_exhausted",
      message: `the body of ${maxEnvelopeBytes + 6} bytes exceeds the limit of ${maxEnvelopeBytes} bytes`,
    });
    const header = new Uint8Array(5);
    new DataView(header.buffer).setUint32(1, maxEnvelopeBytes + 1, false);
    const chunks: Uint8Array[] = [];
    await wire.runSse({
      headers: { "content-type": "application/connect+proto" },
      body: header,
      response: {
        start: () => undefined,
        write: (chunk) => chunks.push(chunk),
        end: () => undefined,
      },
    });
    expect(JSON.parse(new TextDecoder().decode(chunks[0]!.subarray(5))).error.code).toBe(
      "resource_exhausted",
    );
  });

  it("an append without a request id, or with data and data_binary", async () => {
    const { wire } = setup();
    expect(
      await append(
        wire,
        toBinary(
          BidiAppendRequestSchema,
          create(BidiAppendRequestSchema, { data: "", appendSeqno: 0n }),
        ),
      ),
    ).toEqual({
      status: 400,
      code: "invalid_argument",
      message: "BidiAppendRequest.request_id is required",
    });
    expect(
      await append(
        wire,
        toBinary(
          BidiAppendRequestSchema,
          create(BidiAppendRequestSchema, {
            data: "0a00",
            dataBinary: new Uint8Array([0x0a, 0x00]),
            requestId: create(BidiRequestIdSchema, { requestId: "r" }),
          }),
        ),
      ),
    ).toEqual({
      status: 400,
      code: "invalid_argument",
      message: "BidiAppendRequest has both data and data_binary",
    });
  });

  it("a seqno far past the window", async () => {
    const { wire } = setup();
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-far",
          seqno: 1_000,
          message: { message: { case: "clientHeartbeat", value: {} } },
        }),
      ),
    ).toEqual({
      status: 400,
      code: "invalid_argument",
      message:
        "append_seqno 1000 is 1000 past the next expected append 0; at most 255 may be outstanding",
    });
  });

  it("an append for a finished request id", async () => {
    const { wire, snapshot, before } = await withConversation();
    expect(
      await append(
        wire,
        appendBody({
          requestId: "seed",
          seqno: 5,
          message: { message: { case: "clientHeartbeat", value: {} } },
        }),
      ),
    ).toEqual({ status: 400, code: "failed_precondition", message: "request seed has finished" });
    expect(snapshot()).toBe(before);
  });

  it("a first append that is not a run request, and a second run request", async () => {
    const { wire, service } = setup();
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-first",
          seqno: 0,
          message: {
            message: {
              case: "kvClientMessage",
              value: { id: 1, message: { case: "setBlobResult", value: {} } },
            },
          },
        }),
      ),
    ).toEqual({
      status: 400,
      code: "failed_precondition",
      message: "append 0 of request r-first must be its run_request, got kvClientMessage",
    });
    // A heartbeat or a warm-up before the run request is harmless and acknowledged.
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-warm",
          seqno: 0,
          message: { message: { case: "prewarmRequest", value: {} } },
        }),
      ),
    ).toEqual({ status: 200 });
    let release!: () => void;
    service.script({
      events: [{ type: "text.delta", text: "x" }],
      hold: new Promise<void>((r) => (release = r)),
    });
    const stream = new RecordingStream(wire, "r-two", { answerKvFrom: 2 });
    await append(
      wire,
      appendBody({
        requestId: "r-two",
        seqno: 0,
        message: runRequestMessage({ conversationId: "two" }),
      }),
    );
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-two",
          seqno: 1,
          message: runRequestMessage({ conversationId: "two" }),
        }),
      ),
    ).toEqual({
      status: 400,
      code: "failed_precondition",
      message: "request r-two already has its run_request; append 1 carries another",
    });
    release();
    await stream.done;
  });

  it("an exec result for no pending exec, a KV result for no pending operation", async () => {
    const { wire, service } = setup();
    let release!: () => void;
    service.script({
      events: [{ type: "text.delta", text: "x" }],
      hold: new Promise<void>((r) => (release = r)),
    });
    const stream = new RecordingStream(wire, "r-exec", { answerKvFrom: 3 });
    await append(
      wire,
      appendBody({
        requestId: "r-exec",
        seqno: 0,
        message: runRequestMessage({ conversationId: "exec" }),
      }),
    );
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-exec",
          seqno: 1,
          message: {
            message: { case: "execClientMessage", value: { id: 9, execId: "exec-read-1" } },
          },
        }),
      ),
    ).toEqual({
      status: 400,
      code: "failed_precondition",
      message: "exec_client_message 9 (exec_id exec-read-1) answers no pending exec",
    });
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-exec",
          seqno: 2,
          message: {
            message: {
              case: "kvClientMessage",
              value: { id: 77, message: { case: "setBlobResult", value: {} } },
            },
          },
        }),
      ),
    ).toEqual({
      status: 400,
      code: "failed_precondition",
      message: "kv_client_message 77 answers no pending KV operation",
    });
    release();
    await stream.done;
    expect(stream.endJson).toEqual({});
  });

  it("a mid-run action other than cancel", async () => {
    const { wire, service } = setup();
    let release!: () => void;
    service.script({
      events: [{ type: "text.delta", text: "x" }],
      hold: new Promise<void>((r) => (release = r)),
    });
    const stream = new RecordingStream(wire, "r-mid", { answerKvFrom: 2 });
    await append(
      wire,
      appendBody({
        requestId: "r-mid",
        seqno: 0,
        message: runRequestMessage({ conversationId: "mid" }),
      }),
    );
    expect(
      await append(
        wire,
        appendBody({
          requestId: "r-mid",
          seqno: 1,
          message: {
            message: {
              case: "conversationAction",
              value: { action: { case: "summarizeAction", value: {} } },
            },
          },
        }),
      ),
    ).toMatchObject({ status: 501, code: "unimplemented" });
    release();
    await stream.done;
  });

  it.each([
    [
      "start_plan_action",
      { case: "startPlanAction" as const, value: {} },
      "start_plan_action is not supported by this gateway",
    ],
    [
      "shell_command_action",
      { case: "shellCommandAction" as const, value: {} },
      "shell_command_action is not supported by this gateway",
    ],
  ])(
    "an unsupported action (%s): unimplemented, nothing reaches the service",
    async (_name, action, message) => {
      const { wire, snapshot, before } = await withConversation();
      const stream = new RecordingStream(wire, "r-unsupported");
      await append(
        wire,
        appendBody({
          requestId: "r-unsupported",
          seqno: 0,
          message: {
            message: { case: "runRequest", value: { conversationId: "bad", action: { action } } },
          },
        }),
      );
      await stream.done;
      expect(stream.endJson?.error).toMatchObject({ code: "unimplemented", message });
      expect(snapshot()).toBe(before);
    },
  );

  it("an action of a newer schema is named by its field number", async () => {
    const { wire } = setup();
    const stream = new RecordingStream(wire, "r-new-action");
    // ConversationAction with field 42 (LEN, empty): an action this schema does not know.
    const action = new Uint8Array([0x12, 0x03, 0xd2, 0x02, 0x00]);
    const runRequest = new Uint8Array([
      0x0a,
      0x0b,
      0x2a,
      0x04,
      ...new TextEncoder().encode("newa"),
      ...action,
    ]);
    await append(
      wire,
      appendBody({
        requestId: "r-new-action",
        seqno: 0,
        data: Buffer.from(runRequest).toString("hex"),
      }),
    );
    await stream.done;
    expect(stream.endJson?.error).toMatchObject({
      code: "unimplemented",
      message: "conversation action field 42 is not supported by this gateway",
    });
  });

  it("an unsupported mode, a missing conversation id", async () => {
    const { wire } = setup();
    const triage = new RecordingStream(wire, "r-mode");
    await append(
      wire,
      appendBody({
        requestId: "r-mode",
        seqno: 0,
        message: {
          message: {
            case: "runRequest",
            value: {
              conversationId: "m",
              action: {
                action: {
                  case: "userMessageAction",
                  value: { userMessage: { text: "x", messageId: "m1", mode: AgentMode.TRIAGE } },
                },
              },
            },
          },
        },
      }),
    );
    await triage.done;
    expect(triage.endJson?.error).toMatchObject({
      code: "unimplemented",
      message: "mode TRIAGE is not supported (AGENT, ASK, PLAN, DEBUG)",
    });
    const missing = new RecordingStream(wire, "r-conv");
    await append(
      wire,
      appendBody({
        requestId: "r-conv",
        seqno: 0,
        message: {
          message: {
            case: "runRequest",
            value: { action: { action: { case: "summarizeAction", value: {} } } },
          },
        },
      }),
    );
    await missing.done;
    expect(missing.endJson?.error).toEqual({
      code: "invalid_argument",
      message: "run_request.conversation_id is required",
    });
  });

  it("an undecodable payload ends the run it belongs to (no gap left waiting)", async () => {
    const { wire } = setup();
    const stream = new RecordingStream(wire, "r-poison");
    await append(wire, appendBody({ requestId: "r-poison", seqno: 0, data: "zz" }));
    await until(() => stream.ended);
    expect(stream.endJson?.error?.code).toBe("invalid_argument");
  });
});
