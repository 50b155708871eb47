import { createConversationHead } from "@cursor/projection";
import type { TurnRecord } from "@cursor/projection";
import {
  HistoryLog,
  createAssistantMessage,
  createRuntimeMessage,
  createSummaryMessage,
} from "@cursor/run";
import { describe, expect, it } from "vitest";
import { ConversationHeadOwner, initialHeadState, zeroUsage } from "./conversation-head-owner.js";

const runtime = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `q${n}` }],
  });
const answer = (n: number) => createAssistantMessage({ runId: `r${n}`, step: 0, text: `a${n}` });
const record = (n: number): TurnRecord => ({
  clientMessageId: `m${n}`,
  eventId: `turn.m${n}.0`,
  runId: `r${n}`,
  messageIds: [runtime(n).id],
});
const servers = [{ name: "db", tools: [] }];

function owner(messages = [runtime(1), answer(1)]) {
  const history = new HistoryLog({ messages });
  const head = createConversationHead({
    conversationId: "c1",
    history,
    turns: [record(1)],
    lastRunId: "r1",
  });
  return new ConversationHeadOwner(
    initialHeadState({
      tenant: "t",
      head,
      version: { epoch: 0, headDigest: history.headDigest, messageCount: history.length },
      mcpServers: servers,
    }),
  );
}

describe("ConversationHeadOwner", () => {
  it("starts from the initial state, frozen", () => {
    const { state } = owner();
    expect(state).toMatchObject({
      tenant: "t",
      conversationId: "c1",
      usage: zeroUsage,
      tokenAnchor: undefined,
      mcpServers: servers,
      issuedCheckpointDigest: undefined,
    });
    expect(Object.isFrozen(state)).toBe(true);
  });

  it("messages-appended: moves the history, the version, the turns, the last run and the MCP servers", () => {
    const heads = owner();
    const before = heads.state;
    const checked = before.head.history.check([runtime(2), answer(2)]);
    const next = { epoch: 0, headDigest: checked.headDigest, messageCount: checked.length };
    const after = heads.dispatch({
      type: "messages-appended",
      messages: checked.appended,
      next,
      turns: [record(2)],
      acceptedRunId: "r2",
      mcpServers: { servers: undefined },
    });
    expect(after).toBe(heads.state);
    expect(after.version).toEqual(next);
    expect(after.head.history.headDigest).toBe(checked.headDigest);
    expect(after.head.turns).toEqual([record(1), record(2)]);
    expect(after.head.lastRunId).toBe("r2");
    expect(after.mcpServers).toBeUndefined();
    expect(Object.isFrozen(after) && Object.isFrozen(after.head)).toBe(true);
    // The previous snapshot keeps its own fields (only the append-only log is shared).
    expect(before.head.turns).toEqual([record(1)]);
    expect(before.head.lastRunId).toBe("r1");
    expect(before.mcpServers).toBe(servers);
  });

  it("messages-appended without a turn keeps turns, last run and MCP servers", () => {
    const heads = owner();
    const checked = heads.state.head.history.check([runtime(2)]);
    const after = heads.dispatch({
      type: "messages-appended",
      messages: checked.appended,
      next: { epoch: 0, headDigest: checked.headDigest, messageCount: checked.length },
      turns: [],
    });
    expect(after.head.turns).toEqual([record(1)]);
    expect(after.head.lastRunId).toBe("r1");
    expect(after.mcpServers).toBe(servers);
  });

  it("refuses a change whose history would not land on the committed head", () => {
    const heads = owner();
    const before = heads.state;
    const checked = before.head.history.check([runtime(2)]);
    expect(() =>
      heads.dispatch({
        type: "messages-appended",
        messages: checked.appended,
        next: { epoch: 0, headDigest: "0".repeat(64), messageCount: checked.length },
        turns: [],
      }),
    ).toThrow(/did not land on the committed head/);
    expect(heads.state).toBe(before);
  });

  it("epoch-started: switches the history to the new epoch and drops the token anchor", () => {
    const heads = owner();
    heads.dispatch({
      type: "token-anchored",
      anchor: { epoch: 0, messageCount: 2, inputTokens: 900 },
    });
    const epoch = heads.state.head.history.checkEpoch([
      createSummaryMessage({ summarizedEpoch: 0, text: "s" }),
    ]);
    const after = heads.dispatch({
      type: "epoch-started",
      messages: epoch.appended,
      next: { epoch: 1, headDigest: epoch.headDigest, messageCount: 1 },
      turns: [],
      acceptedRunId: "r3",
    });
    expect(after.head.history.epoch).toBe(1);
    expect(after.head.history.messages.map((m) => m.id)).toEqual(["summary:0"]);
    expect(after.version).toEqual({ epoch: 1, headDigest: epoch.headDigest, messageCount: 1 });
    expect(after.tokenAnchor).toBeUndefined();
    expect(after.head.lastRunId).toBe("r3");
  });

  it("run-recorded: with an accepted run moves the last run, without one changes nothing", () => {
    const heads = owner();
    const before = heads.state;
    expect(heads.dispatch({ type: "run-recorded" })).toBe(before);
    expect(heads.dispatch({ type: "run-recorded", acceptedRunId: "r1" }).head).toBe(before.head);
    expect(heads.dispatch({ type: "run-recorded", acceptedRunId: "r7" }).head.lastRunId).toBe("r7");
  });

  it("usage-added sums every call; token-anchored and checkpoint-issued record their value", () => {
    const heads = owner();
    const usage = {
      inputTokens: 100,
      cachedInputTokens: 60,
      cacheWriteTokens: 10,
      outputTokens: 5,
    };
    heads.dispatch({ type: "usage-added", usage });
    heads.dispatch({ type: "usage-added", usage });
    expect(heads.state.usage).toEqual({
      inputTokens: 200,
      cachedInputTokens: 120,
      cacheWriteTokens: 20,
      outputTokens: 10,
    });
    const anchor = { epoch: 0, messageCount: 2, inputTokens: 100 };
    expect(heads.dispatch({ type: "token-anchored", anchor }).tokenAnchor).toEqual(anchor);
    expect(
      heads.dispatch({ type: "checkpoint-issued", digest: "d".repeat(64) }).issuedCheckpointDigest,
    ).toBe("d".repeat(64));
  });

  it("an unstored head (version null) takes its first write like any other", () => {
    const history = new HistoryLog({ messages: [runtime(1)] });
    const heads = new ConversationHeadOwner(
      initialHeadState({
        tenant: "t",
        head: createConversationHead({ conversationId: "c1", history }),
        version: null,
      }),
    );
    const checked = history.check([answer(1)]);
    const after = heads.dispatch({
      type: "messages-appended",
      messages: checked.appended,
      next: { epoch: 0, headDigest: checked.headDigest, messageCount: 2 },
      turns: [record(1)],
      acceptedRunId: "r1",
    });
    expect(after.version).toEqual({ epoch: 0, headDigest: checked.headDigest, messageCount: 2 });
    expect(after.head.turns).toEqual([record(1)]);
  });
});
