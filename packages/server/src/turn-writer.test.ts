import { createConversationHead } from "@cursor/projection";
import type { TurnRecord } from "@cursor/projection";
import { HistoryLog, createAssistantMessage, createRuntimeMessage } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { afterEach, describe, expect, it } from "vitest";
import { ConversationHeadOwner, initialHeadState } from "./conversation-head-owner.js";
import { SqliteStore } from "./store/sqlite-store.js";
import { StoreError } from "./store/store-error.js";
import { TurnWriter } from "./turn-writer.js";

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

let store: SqliteStore;
afterEach(async () => store.close());

function setUp({
  seed = [] as CanonicalMessage[],
  seedTurns = [] as TurnRecord[],
}: { seed?: CanonicalMessage[]; seedTurns?: TurnRecord[] } = {}) {
  store = new SqliteStore({ path: ":memory:", now: () => 1 });
  const history = new HistoryLog({ messages: seed });
  const owner = new ConversationHeadOwner(
    initialHeadState({
      tenant: "t",
      head: createConversationHead({ conversationId: "c1", history, turns: seedTurns }),
      version: null,
    }),
  );
  return { owner, history };
}

const checked = (history: HistoryLog, messages: CanonicalMessage[]) => {
  const result = history.check(messages);
  return {
    messages: result.appended,
    digests: result.digests,
    headDigest: result.headDigest,
    length: result.length,
  };
};

describe("TurnWriter", () => {
  it("writes the turn (records, accepted run, MCP servers) with the first write only", async () => {
    const { owner, history } = setUp();
    const writer = new TurnWriter({
      store,
      owner,
      turn: { newTurns: [record(1)], acceptedRunId: "r1", mcpServers: { servers: [] } },
    });
    expect(writer.turnWritten).toBe(false);
    await writer.appendMessages(checked(history, [runtime(1), answer(1)]));
    expect(writer.turnWritten).toBe(true);
    const stored = await store.load("t", "c1");
    expect(stored).toMatchObject({ lastRunId: "r1", promptSpecInput: { mcpServers: [] } });
    expect(stored?.turns).toEqual([record(1)]);
    expect(owner.state.version).toEqual(await store.headVersion("t", "c1"));
    expect(owner.state.head.lastRunId).toBe("r1");
    expect(owner.state.mcpServers).toEqual([]);
    // A second write of the same request carries no turn.
    await writer.appendMessages(checked(history, [runtime(2)]));
    expect((await store.load("t", "c1"))?.turns).toEqual([record(1)]);
    expect(owner.state.head.turns).toEqual([record(1)]);
  });

  it("writes a hydrated head's messages and records whole with its first write", async () => {
    const { owner, history } = setUp({ seed: [runtime(1)], seedTurns: [record(1)] });
    const writer = new TurnWriter({
      store,
      owner,
      turn: { newTurns: [record(2)], acceptedRunId: "r2" },
    });
    await writer.appendMessages(checked(history, [answer(1), runtime(2)]));
    const stored = await store.load("t", "c1");
    expect(stored?.messages.map((m) => m.id)).toEqual([runtime(1).id, answer(1).id, runtime(2).id]);
    expect(stored?.turns).toEqual([record(1), record(2)]);
    expect(stored?.headDigest).toBe(history.headDigest);
  });

  it("starts an epoch through the store, then the head", async () => {
    const { owner, history } = setUp();
    const writer = new TurnWriter({ store, owner, turn: { newTurns: [], acceptedRunId: "r1" } });
    await writer.appendMessages(checked(history, [runtime(1), answer(1)]));
    const epoch = history.checkEpoch([runtime(1)]);
    const after = await writer.startEpoch({
      epoch: 1,
      messages: epoch.appended,
      digests: epoch.digests,
      headDigest: epoch.headDigest,
      length: 1,
    });
    expect(after.head.history.epoch).toBe(1);
    expect(await store.headVersion("t", "c1")).toEqual(after.version);
  });

  it("records the run; accepts it only when the request wrote nothing", async () => {
    const { owner, history } = setUp();
    const first = new TurnWriter({ store, owner, turn: { newTurns: [], acceptedRunId: "r1" } });
    await first.appendMessages(checked(history, [runtime(1)]));
    const usage = { inputTokens: 5, cachedInputTokens: 1, cacheWriteTokens: 0, outputTokens: 2 };
    owner.dispatch({ type: "usage-added", usage });
    owner.dispatch({
      type: "token-anchored",
      anchor: { epoch: 0, messageCount: 1, inputTokens: 5 },
    });
    await first.recordRun({ run: { runId: "r1", status: "completed" }, acceptRun: true });
    expect(await store.load("t", "c1")).toMatchObject({
      lastRunId: "r1",
      usage,
      lastInput: { inputTokens: 5, messageCount: 1 },
    });
    // A request that writes nothing (a retry that is done) is the latest accepted run.
    const retry = new TurnWriter({ store, owner, turn: { newTurns: [], acceptedRunId: "r9" } });
    const after = await retry.recordRun({
      run: { runId: "r1", status: "completed" },
      acceptRun: true,
    });
    expect(after.head.lastRunId).toBe("r9");
    expect((await store.load("t", "c1"))?.lastRunId).toBe("r9");
    // A model call that never landed is not.
    const failed = new TurnWriter({ store, owner, turn: { newTurns: [], acceptedRunId: "r10" } });
    await failed.recordRun({ run: { runId: "r10", status: "failed" }, acceptRun: false });
    expect((await store.load("t", "c1"))?.lastRunId).toBe("r9");
    expect(await store.getRun({ tenant: "t", conversationId: "c1", runId: "r10" })).toEqual({
      runId: "r10",
      status: "failed",
    });
  });

  it("records only the run of a conversation the store does not have", async () => {
    const { owner } = setUp();
    const writer = new TurnWriter({ store, owner, turn: { newTurns: [], acceptedRunId: "r1" } });
    const after = await writer.recordRun({
      run: { runId: "r1", status: "cancelled" },
      acceptRun: true,
    });
    expect(after.version).toBeNull();
    expect(await store.load("t", "c1")).toBeUndefined();
    expect(await store.getRun({ tenant: "t", conversationId: "c1", runId: "r1" })).toEqual({
      runId: "r1",
      status: "cancelled",
    });
  });

  it("leaves the head as it was when the store refuses the write", async () => {
    const { owner, history } = setUp();
    const writer = new TurnWriter({
      store,
      owner,
      turn: { newTurns: [record(1)], acceptedRunId: "r1" },
    });
    // Another process created the conversation meanwhile.
    const other = new HistoryLog({ messages: [answer(7)] });
    await store.appendMessages({
      tenant: "t",
      conversationId: "c1",
      expected: null,
      messages: other.messages,
      digests: other.digests,
      next: { epoch: 0, headDigest: other.headDigest, messageCount: 1 },
    });
    const before = owner.state;
    await expect(writer.appendMessages(checked(history, [runtime(1)]))).rejects.toSatisfy(
      (error: unknown) => StoreError.isInstance(error) && error.reason === "head-moved",
    );
    expect(owner.state).toBe(before);
    expect(history.length).toBe(0);
    expect(writer.turnWritten).toBe(false);
  });
});
