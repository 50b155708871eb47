import { describe, expect, it } from "vitest";
import { ScriptedPorts } from "../__fixtures__/scripted-ports.js";
import {
  RecordingStream,
  appendBody,
  replyJson,
  runRequestMessage,
  tick,
} from "../__fixtures__/raw-wire.js";
import { createCursorWire } from "../cursor-wire.js";
import { ManualTimers } from "./wire-timers.js";

function setup() {
  const timers = new ManualTimers({ start: 1_000_000 });
  const service = new ScriptedPorts();
  const wire = createCursorWire({ ports: service.ports(), timers });
  return { timers, service, wire };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i += 1) await tick();
  expect(condition()).toBe(true);
}

describe("run streams (RunSSE + BidiAppend)", () => {
  it("answers RunSSE as a binary Connect stream of text/event-stream", async () => {
    const { wire } = setup();
    const stream = new RecordingStream(wire, "r-headers");
    expect(stream.status).toBe(200);
    expect(stream.headers).toEqual({
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "connect-protocol-version": "1",
    });
    await wire.close();
  });

  it("sends a heartbeat every 5 s while nothing else is sent", async () => {
    const { timers, service, wire } = setup();
    let release!: () => void;
    service.script({
      events: [{ type: "text.delta", text: "slow" }],
      hold: new Promise<void>((r) => (release = r)),
    });
    const stream = new RecordingStream(wire, "r-hb", { answerKvFrom: 1 });
    timers.advance(4_999);
    expect(stream.kinds).toEqual([]);
    timers.advance(1);
    expect(stream.kinds).toEqual(["heartbeat"]);
    await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-hb",
        seqno: 0,
        message: runRequestMessage({ conversationId: "hb" }),
      }),
    });
    await until(() => stream.kinds.includes("textDelta"));
    timers.advance(4_000);
    expect(stream.kinds.filter((kind) => kind === "heartbeat")).toHaveLength(1);
    timers.advance(1_000);
    expect(stream.kinds.filter((kind) => kind === "heartbeat")).toHaveLength(2);
    timers.advance(10_000);
    expect(stream.kinds.filter((kind) => kind === "heartbeat")).toHaveLength(4);
    release();
    await stream.done;
    expect(stream.endJson).toEqual({});
  });

  it("cancels a run whose client is gone for 30 s; the head is unchanged", async () => {
    const { timers, service, wire } = setup();
    let release!: () => void;
    service.script({
      events: [{ type: "text.delta", text: "slow" }],
      hold: new Promise<void>((r) => (release = r)),
    });
    const abort = new AbortController();
    const stream = new RecordingStream(wire, "r-gone", { signal: abort.signal });
    await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-gone",
        seqno: 0,
        message: runRequestMessage({ conversationId: "gone" }),
      }),
    });
    await until(() => stream.kinds.includes("textDelta"));
    abort.abort();
    await stream.done;
    timers.advance(29_999);
    await tick();
    expect(service.active.has("gone")).toBe(true);
    timers.advance(1);
    await until(() => !service.active.has("gone"));
    release();
    const replay = new RecordingStream(wire, "r-gone");
    await until(() => replay.ended);
    expect(replay.endJson?.error?.code).toBe("canceled");
    expect(replay.endJson?.error?.message).toContain("the client is gone");
    // The run ended cancelled: the service was told (its head stays as it was).
    expect(service.bodies).toHaveLength(1);
  });

  it("keeps an ended stream 30 s for a reconnect, then refuses the request id", async () => {
    const { timers, wire } = setup();
    const stream = new RecordingStream(wire, "r-keep", { answerKvFrom: 1 });
    await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-keep",
        seqno: 0,
        message: runRequestMessage({ conversationId: "keep" }),
      }),
    });
    await stream.done;
    expect(stream.endJson).toEqual({});
    timers.advance(29_000);
    const replay = new RecordingStream(wire, "r-keep");
    await replay.done;
    expect(replay.kinds).toEqual(stream.kinds);
    timers.advance(1_000);
    expect(wire.sessionCount).toBe(0);
    const late = new RecordingStream(wire, "r-keep");
    await late.done;
    expect(late.endJson?.error).toEqual({
      code: "failed_precondition",
      message: "request r-keep has finished",
    });
    const reply = await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-keep",
        seqno: 1,
        message: { message: { case: "clientHeartbeat", value: {} } },
      }),
    });
    expect(replyJson(reply)).toEqual({
      status: 400,
      code: "failed_precondition",
      message: "request r-keep has finished",
    });
  });

  it("ends a request id whose run request never arrives with not_found", async () => {
    const { timers, wire } = setup();
    const stream = new RecordingStream(wire, "r-never");
    const held = wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-never",
        seqno: 1,
        message: { message: { case: "clientHeartbeat", value: {} } },
      }),
    });
    timers.advance(30_000);
    await stream.done;
    expect(stream.endJson?.error?.code).toBe("not_found");
    expect(stream.endJson?.error?.message).toBe(
      "no run_request arrived for request r-never within 30000 ms",
    );
    expect(replyJson(await held)).toMatchObject({ status: 404, code: "not_found" });
  });

  it("a new run of a conversation cancels the one still streaming", async () => {
    const { service, wire } = setup();
    service.script(
      { events: [{ type: "text.delta", text: "slow" }], hold: new Promise<void>(() => undefined) },
      { events: [{ type: "text.delta", text: "second" }] },
    );
    const first = new RecordingStream(wire, "r-old", { answerKvFrom: 1 });
    await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-old",
        seqno: 0,
        message: runRequestMessage({ conversationId: "take", messageId: "m-1" }),
      }),
    });
    await until(() => first.kinds.includes("textDelta"));
    const second = new RecordingStream(wire, "r-new", { answerKvFrom: 1 });
    await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-new",
        seqno: 0,
        message: runRequestMessage({ conversationId: "take", text: "again", messageId: "m-2" }),
      }),
    });
    await first.done;
    expect(first.endJson?.error?.code).toBe("canceled");
    await second.done;
    expect(second.endJson).toEqual({});
  });

  it("orders appends that arrive out of order, and skips a client message of an unknown kind", async () => {
    const { service, wire } = setup();
    const stream = new RecordingStream(wire, "r-order", { answerKvFrom: 2 });
    // Field 99 of AgentClientMessage: a message kind of a newer client.
    const unknownKind = wire.bidiAppend({
      headers: {},
      body: appendBody({ requestId: "r-order", seqno: 1, data: "9a0600" }),
    });
    await tick();
    expect(service.bodies).toHaveLength(0);
    const first = await wire.bidiAppend({
      headers: {},
      body: appendBody({
        requestId: "r-order",
        seqno: 0,
        message: runRequestMessage({ conversationId: "order" }),
      }),
    });
    expect(replyJson(first)).toEqual({ status: 200 });
    expect(replyJson(await unknownKind)).toEqual({ status: 200 });
    await stream.done;
    expect(stream.endJson).toEqual({});
    expect(
      service.logs.some((line) => line.message === "skipped a client message of an unknown kind"),
    ).toBe(true);
  });
});
