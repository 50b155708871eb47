import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { AgentServerMessage } from "../gen/agent_v1_pb.js";
import { AgentServerMessageSchema } from "../gen/agent_v1_pb.js";
import { interactionUpdates } from "../updates/interaction-updates.js";
import { OrderedOutput } from "./ordered-output.js";

const text = (value: string) => interactionUpdates.textDelta(value);
const textOf = (message: AgentServerMessage) =>
  message.message.case === "interactionUpdate" && message.message.value.message.case === "textDelta"
    ? message.message.value.message.value.text
    : message.message.case;

describe("OrderedOutput", () => {
  it("keeps messages behind an asynchronous step (nothing overtakes a checkpoint)", async () => {
    const sent: AgentServerMessage[] = [];
    const output = new OrderedOutput((message) => sent.push(message));
    let release!: () => void;
    output.send(text("a"));
    output.step(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      sent.push(
        create(AgentServerMessageSchema, {
          message: { case: "conversationCheckpointUpdate", value: {} },
        }),
      );
    });
    output.send(text("b"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map(textOf)).toEqual(["a"]);
    release();
    await output.flush();
    expect(sent.map(textOf)).toEqual(["a", "conversationCheckpointUpdate", "b"]);
  });

  it("drops what follows a failed step and rethrows its error on flush", async () => {
    const sent: AgentServerMessage[] = [];
    const failures: unknown[] = [];
    const output = new OrderedOutput((message) => sent.push(message));
    output.step(
      () => Promise.reject(new Error("barrier failed")),
      (error) => failures.push(error),
    );
    output.send(text("late"));
    await expect(output.flush()).rejects.toThrow("barrier failed");
    expect(sent).toEqual([]);
    expect(failures).toHaveLength(1);
  });
});
