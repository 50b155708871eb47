import { HistoryLog, createRuntimeMessage, sha256Hex } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { agentConversation } from "./__fixtures__/histories.js";
import { checkpointStateSchema } from "./checkpoint-state.js";
import { createCheckpointState } from "./create-checkpoint-state.js";

describe("createCheckpointState", () => {
  it("fills version, epoch, messages and head digest from the log", () => {
    const built = agentConversation(2);
    const state = createCheckpointState({
      conversationId: "c",
      history: built.history,
      turns: built.turns,
      latestRequestContextId: built.latestRequestContextId,
      promptSpecDigest: sha256Hex("spec"),
    });
    expect(state).toEqual({
      formatVersion: 2,
      conversationId: "c",
      epoch: 0,
      messages: built.history.messages,
      turns: built.turns,
      latestRequestContextId: built.latestRequestContextId,
      promptSpecDigest: sha256Hex("spec"),
      headDigest: built.history.headDigest,
    });
    expect(checkpointStateSchema.parse(state)).toEqual(state);
  });

  it("leaves optional fields out and snapshots the messages", () => {
    const history = new HistoryLog({ epoch: 1 });
    const state = createCheckpointState({ conversationId: "c", history, turns: [] });
    expect(Object.keys(state).sort()).toEqual([
      "conversationId",
      "epoch",
      "formatVersion",
      "headDigest",
      "messages",
      "turns",
    ]);
    history.append(
      createRuntimeMessage({
        eventId: "inject.x",
        runtimeKind: "injected-context",
        content: [{ type: "text", text: "x" }],
      }),
    );
    expect(state.messages).toEqual([]);
    expect(state.headDigest).not.toBe(history.headDigest);
  });
});
