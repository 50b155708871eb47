import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ConnectError } from "../connect/connect-error.js";
import type { AgentServerMessage } from "../gen/agent_v1_pb.js";
import {
  ExecClientControlMessageSchema,
  ExecClientMessageSchema,
  InteractionResponseSchema,
  ReadArgsSchema,
} from "../gen/agent_v1_pb.js";
import { ManualTimers } from "../session/wire-timers.js";
import { ExecChannel, streamCloseGraceMs } from "./exec-channel.js";

function channel() {
  const sent: AgentServerMessage[] = [];
  const timers = new ManualTimers();
  const abort = new AbortController();
  let id = 0;
  const exec = new ExecChannel({
    send: (message) => sent.push(message),
    nextId: () => (id += 1),
    lastId: () => id,
    timers,
    signal: abort.signal,
  });
  return { exec, sent, timers, abort };
}

const read = { case: "readArgs" as const, value: create(ReadArgsSchema, { path: "/a" }) };
const readResult = (id: number, execId: string) =>
  create(ExecClientMessageSchema, {
    id,
    execId,
    message: {
      case: "readResult",
      value: { result: { case: "fileNotFound", value: { path: "/a" } } },
    },
  });
const control = (message: Parameters<typeof create<typeof ExecClientControlMessageSchema>>[1]) =>
  create(ExecClientControlMessageSchema, message);

describe("ExecChannel", () => {
  it("sends each exec with a fresh id and exec id, settles it once on its result", async () => {
    const { exec, sent } = channel();
    const first = exec.exec(read);
    const second = exec.exec(read);
    const ids = sent.map((message) =>
      message.message.case === "execServerMessage"
        ? [message.message.value.id, message.message.value.execId]
        : [],
    );
    expect(ids).toEqual([
      [1, "exec-read-1"],
      [2, "exec-read-2"],
    ]);
    exec.deliverExec(readResult(2, "exec-read-2"));
    exec.deliverExec(readResult(1, "exec-read-1"));
    expect((await first).kind).toBe("result");
    expect((await second).kind).toBe("result");
    // A duplicate is refused and changes nothing.
    expect(() => exec.deliverExec(readResult(1, "exec-read-1"))).toThrow(
      "exec_client_message 1 (exec_id exec-read-1) answers no pending exec",
    );
    expect(exec.pendingCount).toBe(0);
  });

  it("refuses a mismatched exec id and an unknown id; a wrong kind or no result fails the exec", async () => {
    const { exec } = channel();
    const pending = exec.exec(read);
    expect(() => exec.deliverExec(readResult(1, "exec-read-7"))).toThrow(ConnectError);
    expect(() => exec.deliverExec(readResult(5, "exec-read-5"))).toThrow(/answers no pending exec/);
    expect(exec.pendingCount).toBe(1);
    expect(() =>
      exec.deliverExec(
        create(ExecClientMessageSchema, {
          id: 1,
          execId: "exec-read-1",
          message: { case: "lsResult", value: {} },
        }),
      ),
    ).toThrow("exec_client_message 1 answers a read exec with lsResult");
    expect(await pending).toEqual({
      kind: "failure",
      reason: "the editor answered read with a lsResult",
    });
    const empty = exec.exec(read);
    expect(() =>
      exec.deliverExec(create(ExecClientMessageSchema, { id: 2, execId: "exec-read-2" })),
    ).toThrow("carries no result");
    expect((await empty).kind).toBe("failure");
  });

  it("a throw fails the exec; stream_close fails it after the grace period unless a result comes", async () => {
    const { exec, timers } = channel();
    const thrown = exec.exec(read);
    exec.deliverControl(control({ message: { case: "throw", value: { id: 1, error: "EACCES" } } }));
    expect(await thrown).toEqual({
      kind: "failure",
      reason: "the editor failed to run it: EACCES",
    });
    const closed = exec.exec(read);
    exec.deliverControl(control({ message: { case: "streamClose", value: { id: 2 } } }));
    timers.advance(streamCloseGraceMs - 1);
    expect(exec.pendingCount).toBe(1);
    timers.advance(1);
    expect(await closed).toEqual({
      kind: "failure",
      reason: "the editor closed the exec stream without a result",
    });
    const late = exec.exec(read);
    exec.deliverControl(control({ message: { case: "streamClose", value: { id: 3 } } }));
    exec.deliverExec(readResult(3, "exec-read-3"));
    expect((await late).kind).toBe("result");
    // A close after the result is an acknowledgement; one for an id never issued is refused.
    exec.deliverControl(control({ message: { case: "streamClose", value: { id: 3 } } }));
    expect(() =>
      exec.deliverControl(control({ message: { case: "streamClose", value: { id: 40 } } })),
    ).toThrow(/answers no pending exec/);
  });

  it("abort sends exec_server_control abort per pending exec and fails every pending request", async () => {
    const { exec, sent, abort } = channel();
    const a = exec.exec(read);
    const question = exec.query(
      { case: "askQuestionInteractionQuery", value: {} as never },
      "askQuestionInteractionResponse",
    );
    abort.abort(new Error("cancelled by the client"));
    expect((await a).kind).toBe("failure");
    expect((await question).kind).toBe("failure");
    const aborts = sent.filter((message) => message.message.case === "execServerControlMessage");
    expect(aborts).toHaveLength(1);
    expect(aborts[0]!.message.value).toMatchObject({
      message: { case: "abort", value: { id: 1 } },
    });
    expect((await exec.exec(read)).kind).toBe("failure");
  });

  it("matches interaction responses by id and kind", async () => {
    const { exec } = channel();
    const pending = exec.query(
      { case: "createPlanRequestQuery", value: {} as never },
      "createPlanRequestResponse",
    );
    expect(() => exec.deliverResponse(create(InteractionResponseSchema, { id: 9 }))).toThrow(
      "interaction_response 9 answers no pending interaction query",
    );
    exec.deliverResponse(
      create(InteractionResponseSchema, {
        id: 1,
        result: { case: "createPlanRequestResponse", value: {} },
      }),
    );
    expect((await pending).kind).toBe("response");
  });
});
