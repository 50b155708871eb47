import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders, testCheckpointSecret } from "./e2e-environment.js";
import { conversationView, userTurn, verifyConversation } from "./e2e-helpers.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { prefixViolations } from "./provider-bodies.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { lastCheckpoint, runEnded, streamRun } from "./sse-run.js";

const folders = temporaryFolders("stale-stores");
afterAll(() => folders.removeAll());

interface HistoryMessage {
  readonly id: string;
  readonly kind: string;
}

let provider: ScriptedProvider;
beforeAll(async () => {
  provider = await startScriptedProvider();
});
afterAll(() => provider.fake.close());

/** A gateway on its own data folder, sharing the checkpoint secret (as the contract allows). */
async function gatewayProcess(): Promise<RunningGateway & { dataDir: string }> {
  const dataDir = folders.create();
  const gateway = await startInProcessGateway({
    provider,
    dataDir,
    extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
  });
  return Object.assign(gateway, { dataDir });
}

async function turn(
  gateway: RunningGateway,
  conversationId: string,
  n: number,
  checkpoint?: string,
) {
  provider.reply = { type: "text", text: `Answer ${n}.` };
  const result = await streamRun(gateway.url, {
    ...userTurn({ conversationId, turn: n }),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  });
  return { result, body: provider.fake.requests.at(-1)!.body };
}

async function historyIds(gateway: RunningGateway, conversationId: string): Promise<string[]> {
  const view = await conversationView(gateway.url, conversationId);
  expect(view.history.status).toBe(200);
  return (view.history.body as HistoryMessage[]).map((message) => message.id);
}

describe("a store behind the client (two processes, separate data folders, one secret)", () => {
  let p1: RunningGateway;
  let p2: RunningGateway;
  beforeAll(async () => {
    [p1, p2] = await Promise.all([gatewayProcess(), gatewayProcess()]);
  });
  afterAll(async () => {
    await Promise.all([p1.close(), p2.close()]);
  });

  it("turn 3 on P1 with turn 2's checkpoint from P2 keeps turn 2: history, provider body, checkpoint", async () => {
    const c = "stale-p1";
    const one = await turn(p1, c, 1);
    expect(runEnded(one.result.events)).toEqual({ reason: "completed" });
    const two = await turn(p2, c, 2, lastCheckpoint(one.result.events)!.checkpoint);
    expect(runEnded(two.result.events)).toEqual({ reason: "completed" });
    const turnTwoIds = await historyIds(p2, c);
    const three = await turn(p1, c, 3, lastCheckpoint(two.result.events)!.checkpoint);
    expect(runEnded(three.result.events)).toEqual({ reason: "completed" });
    // Nothing of turn 2 is dropped: P1's history extends P2's, and so does the provider body.
    const ids = await historyIds(p1, c);
    expect(ids.slice(0, turnTwoIds.length)).toEqual(turnTwoIds);
    expect(ids).toHaveLength(turnTwoIds.length + 2);
    expect(prefixViolations("openai-responses", [one.body, two.body, three.body])).toEqual([]);
    expect(JSON.stringify(three.body)).toContain("Answer 2.");
    // The new checkpoint holds turn 2 too: P2, which never saw turn 3, continues from it.
    const four = await turn(p2, c, 4, lastCheckpoint(three.result.events)!.checkpoint);
    expect(runEnded(four.result.events)).toEqual({ reason: "completed" });
    expect((await historyIds(p2, c)).slice(0, ids.length)).toEqual(ids);
    await verifyConversation(p1.url, c);
    await verifyConversation(p2.url, c);
  });

  it("a delta-form client: a stale store asks for the chain (409 checkpoint_incomplete), and the chain keeps turn 2", async () => {
    const c = "stale-delta";
    const deltaOf = (events: readonly { event: string; data: unknown }[]) =>
      (events.find((event) => event.event === "checkpoint.delta")?.data as { delta: string }).delta;
    const deltaTurn = async (
      gateway: RunningGateway,
      n: number,
      sent: { checkpoint?: string; checkpointChain?: string[] },
    ) => {
      provider.reply = { type: "text", text: `Answer ${n}.` };
      return streamRun(gateway.url, {
        ...userTurn({ conversationId: c, turn: n }),
        checkpointForm: "delta",
        ...sent,
      });
    };
    const one = await deltaTurn(p1, 1, {});
    expect(runEnded(one.events)).toEqual({ reason: "completed" });
    const d1 = deltaOf(one.events);
    // P2 does not hold the conversation: it is given the chain.
    const two = await deltaTurn(p2, 2, { checkpointChain: [d1] });
    expect(runEnded(two.events)).toEqual({ reason: "completed" });
    const d2 = deltaOf(two.events);
    const turnTwoIds = await historyIds(p2, c);
    // Back on P1, whose store has only turn 1: the last delta alone cannot say what turn 2 was.
    const before = await conversationView(p1.url, c);
    const calls = provider.fake.requests.length;
    const refused = await deltaTurn(p1, 3, { checkpoint: d2 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: "checkpoint_incomplete" } });
    expect(provider.fake.requests.length).toBe(calls);
    expect(await conversationView(p1.url, c)).toEqual(before);
    // With the chain, P1 adopts turn 2 and continues after it.
    const three = await deltaTurn(p1, 3, { checkpointChain: [d1, d2] });
    expect(runEnded(three.events)).toEqual({ reason: "completed" });
    const ids = await historyIds(p1, c);
    expect(ids.slice(0, turnTwoIds.length)).toEqual(turnTwoIds);
    expect(ids).toHaveLength(turnTwoIds.length + 2);
    // A delta the store is ahead of (P1 now holds turn 3) is accepted alone.
    const four = await deltaTurn(p1, 4, { checkpoint: d2 });
    expect(runEnded(four.events)).toEqual({ reason: "completed" });
    await verifyConversation(p1.url, c);
  });

  it("a checkpoint the store is ahead of changes nothing; a diverged one is a 409 saying where", async () => {
    const c = "diverged";
    const one = await turn(p1, c, 1);
    const first = lastCheckpoint(one.result.events)!.checkpoint;
    // P2 continues from turn 1 with its own turn 2; P1 with another.
    const onP2 = await turn(p2, c, 2, first);
    expect(runEnded(onP2.result.events)).toEqual({ reason: "completed" });
    provider.reply = { type: "text", text: "Another answer." };
    const onP1 = await streamRun(p1.url, {
      ...userTurn({ conversationId: c, turn: 2, text: "A different second question." }),
      runId: "run-2b",
    });
    expect(runEnded(onP1.events)).toEqual({ reason: "completed" });
    const before = await conversationView(p1.url, c);
    // An old checkpoint (turn 1) is behind P1's store: used as the store says, nothing changes.
    const behind = await turn(p1, c, 3, first);
    expect(runEnded(behind.result.events)).toEqual({ reason: "completed" });
    // P2's checkpoint has another turn 2 than P1's store: refused, nothing stored.
    const afterBehind = await conversationView(p1.url, c);
    const calls = provider.fake.requests.length;
    const refused = await streamRun(p1.url, {
      ...userTurn({ conversationId: c, turn: 4 }),
      checkpoint: lastCheckpoint(onP2.result.events)!.checkpoint,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      error: {
        code: "conflict",
        message: expect.stringMatching(
          /does not continue the stored conversation: .*differ from message \d+/,
        ),
      },
    });
    expect(provider.fake.requests.length).toBe(calls);
    expect(await conversationView(p1.url, c)).toEqual(afterBehind);
    expect(afterBehind.summary.body).not.toEqual(before.summary.body);
  });
});

describe("damaged data", () => {
  let gateway: RunningGateway & { dataDir: string };
  beforeAll(async () => {
    gateway = await gatewayProcess();
  });
  afterAll(() => gateway.close());

  function damage(sql: string, ...parameters: unknown[]): void {
    const raw = new Database(join(gateway.dataDir, "gateway.sqlite"));
    raw.prepare(sql).run(...parameters);
    raw.close();
  }

  it("a corrupt blob: the error says how to recover; the client's checkpoint recovers it", async () => {
    const c = "damaged";
    const one = await turn(gateway, c, 1);
    const two = await turn(gateway, c, 2, lastCheckpoint(one.result.events)!.checkpoint);
    const checkpoint = lastCheckpoint(two.result.events)!.checkpoint;
    const ids = await historyIds(gateway, c);
    // The first message's bytes rot on disk; a fresh process has no cached head.
    damage(
      'UPDATE blobs SET bytes = CAST(\'{"kind":"user"}\' AS BLOB) WHERE id = (SELECT blob_id FROM messages WHERE conversation_id = ? AND seq = 0)',
      c,
    );
    await gateway.close();
    gateway = Object.assign(
      await startInProcessGateway({
        provider,
        dataDir: gateway.dataDir,
        extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
      }),
      { dataDir: gateway.dataDir },
    );
    const hint = /failed verification .*send the conversation's latest checkpoint/;
    const view = await conversationView(gateway.url, c);
    expect(view.history.status).toBe(500);
    expect(view.history.body).toMatchObject({ error: { message: expect.stringMatching(hint) } });
    const without = await turn(gateway, c, 3);
    expect(without.result.status).toBe(500);
    expect(without.result.body).toMatchObject({ error: { message: expect.stringMatching(hint) } });
    // The store itself can still serve: only this conversation's state is damaged.
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);

    const recovered = await turn(gateway, c, 3, checkpoint);
    expect(runEnded(recovered.result.events)).toEqual({ reason: "completed" });
    const after = await historyIds(gateway, c);
    expect(after.slice(0, ids.length)).toEqual(ids);
    // Repaired for good: the next request needs no checkpoint.
    const four = await turn(gateway, c, 4);
    expect(runEnded(four.result.events)).toEqual({ reason: "completed" });
    await verifyConversation(gateway.url, c);
  });

  it("/healthz reports a store that cannot serve", async () => {
    expect(await (await fetch(`${gateway.url}/healthz`)).json()).toEqual({ ok: true });
    damage("DROP TABLE runs");
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      ok: false,
      error: { code: "unavailable", message: expect.stringMatching(/runs/) },
    });
  });
});
