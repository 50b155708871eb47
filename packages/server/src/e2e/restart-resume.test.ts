import { afterAll, beforeAll, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { agentScript } from "./agent-script.js";
import type { ScriptRequest } from "./agent-script.js";
import { gatewayEnvironment, temporaryFolders, testCheckpointSecret } from "./e2e-environment.js";
import { conversationView, userTurn } from "./e2e-helpers.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import type { E2eStore, StoreKind } from "./e2e-stores.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { bodyTexts, cacheShortfalls, prefixViolations } from "./provider-bodies.js";
import { runScriptRequest, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { lastCheckpoint, runEnded, streamRun } from "./sse-run.js";

const conversationId = "restart-conversation";
// 12 turns, 20 requests: tool rounds, the A → B → A context change, a mode switch, a background
// completion and an injected event whose `expectedRunId` checks the head's last run.
const script = agentScript({ conversationId, callIdPrefix: "call", turns: 12 });
const folders = temporaryFolders("restart");
const stores = e2eStores();

/** A fresh deployment store: a data folder, and a database of its own on PostgreSQL. */
function freshStore(kind: StoreKind): Promise<E2eStore> {
  return stores.create({ kind, dataDir: folders.create() });
}

function environment(provider: ScriptedProvider, store: E2eStore) {
  return gatewayEnvironment({
    api: "openai-responses",
    fake: provider.fake,
    dataDir: store.dataDir,
    extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret, ...store.environment },
  });
}

function indexOf(label: string): number {
  const index = script.findIndex((request) => request.label === label);
  if (index === -1) throw new Error(`no scripted request ${label}`);
  return index;
}

async function conversation(gateway: GatewayProcess) {
  const client = createGatewayClient({ baseURL: gateway.url });
  const [summary, history] = await Promise.all([
    client.get(`/v1/conversations/${conversationId}`),
    client.get(`/v1/conversations/${conversationId}/history`),
  ]);
  return { summary, history };
}

// The same script without any restart: what every variant below must send, byte for byte.
// Run by the same gateway code in this process (a process start saved).
let reference: { bodies: string[]; history: unknown };

beforeAll(async () => {
  const provider = await startScriptedProvider();
  const gateway = await startInProcessGateway({
    provider,
    dataDir: folders.create(),
    extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
  });
  try {
    for (const request of script) {
      await runScriptRequest({ baseURL: gateway.url, provider, request });
    }
    reference = {
      bodies: bodyTexts(provider.fake.requests),
      history: (await conversationView(gateway.url, conversationId)).history.body,
    };
    expect(
      prefixViolations(
        "openai-responses",
        provider.fake.requests.map((request) => request.body),
      ),
    ).toEqual([]);
  } finally {
    await gateway.close();
    await provider.fake.close();
  }
});

afterAll(async () => {
  await killAllGatewayProcesses();
  await stores.dropAll();
  folders.removeAll();
});

describeEachStore("restart on the same store", ({ kind }) => {
  it(
    "continues after a turn boundary and a tool wait with the same bodies as without restarts",
    { timeout: 120_000 },
    async () => {
      const provider = await startScriptedProvider();
      const store = await freshStore(kind);
      // Stop (SIGTERM) and start again after turn 3, at turn 9's tool wait, and before the
      // injected event of turn 11 (its expectedRunId must match the restored head).
      const restartAfter = new Set([
        indexOf("turn 3 tool results 1"),
        indexOf("turn 9"),
        indexOf("turn 10"),
      ]);
      let gateway = await startGatewayProcess(environment(provider, store));
      try {
        for (const [index, request] of script.entries()) {
          await runScriptRequest({ baseURL: gateway.url, provider, request });
          if (!restartAfter.has(index)) continue;
          const before = await conversation(gateway);
          expect(await gateway.stop()).toEqual({ code: 0, signal: null });
          gateway = await startGatewayProcess(environment(provider, store));
          // The restarted process loads exactly the head it left.
          const after = await conversation(gateway);
          expect(after.summary).toEqual(before.summary);
          expect(after.history).toEqual(before.history);
        }
        // Nothing duplicated, nothing re-projected: the provider saw exactly what it sees
        // without restarts, and every call read the best possible from its cache.
        expect(bodyTexts(provider.fake.requests)).toEqual(reference.bodies);
        expect(cacheShortfalls(provider.fake.requests.slice(1))).toEqual([]);
        expect((await conversation(gateway)).history.body).toEqual(reference.history);
      } finally {
        await gateway.stop();
        await provider.fake.close();
      }
    },
  );
});

describeEachStore("resume from a client checkpoint on a fresh store", ({ kind }) => {
  it(
    "sends the same bodies as without the move, at a turn boundary and at a tool wait",
    { timeout: 120_000 },
    async () => {
      const provider = await startScriptedProvider();
      const resumeAt = new Set([indexOf("turn 11"), indexOf("turn 12 tool results 1")]);
      let gateway = await startGatewayProcess(environment(provider, await freshStore(kind)));
      let checkpoint: string | undefined;
      try {
        for (const [index, scripted] of script.entries()) {
          let request: ScriptRequest = scripted;
          if (resumeAt.has(index)) {
            // The client moves to another gateway process that has never seen the conversation
            // (the first process is gone with its store): only the checkpoint carries it.
            await gateway.kill();
            gateway = await startGatewayProcess(environment(provider, await freshStore(kind)));
            expect((await conversation(gateway)).summary.status).toBe(404);
            request = { ...scripted, body: { ...scripted.body, checkpoint: checkpoint! } };
          }
          const result = await runScriptRequest({ baseURL: gateway.url, provider, request });
          checkpoint = lastCheckpoint(result.events)?.checkpoint;
          expect(checkpoint).toBeDefined();
          if (resumeAt.has(index)) {
            // The resumed conversation is stored whole with its first commit.
            const resumed = await conversation(gateway);
            expect(resumed.summary.status).toBe(200);
            expect((resumed.summary.body as { messages: number }).messages).toBe(
              (resumed.history.body as unknown[]).length,
            );
            expect(lastCheckpoint(result.events)?.messages).toBe(
              (resumed.history.body as unknown[]).length,
            );
          }
        }
        expect(bodyTexts(provider.fake.requests)).toEqual(reference.bodies);
        expect(cacheShortfalls(provider.fake.requests.slice(1))).toEqual([]);
        expect((await conversation(gateway)).history.body).toEqual(reference.history);
      } finally {
        await gateway.stop();
        await provider.fake.close();
      }
    },
  );
});

describeEachStore(
  "resume edge cases (in-process gateways, one shared checkpoint secret)",
  ({ kind }) => {
    const extra = { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret };
    /** An in-process gateway on a fresh store of this kind. */
    const startFresh = async (provider: ScriptedProvider) => {
      const store = await freshStore(kind);
      return startInProcessGateway({
        provider,
        dataDir: store.dataDir,
        extra: { ...extra, ...store.environment },
      });
    };

    it("a resumed run that fails stores nothing; resent with the checkpoint it stores the conversation whole", async () => {
      const provider = await startScriptedProvider();
      const first = await startFresh(provider);
      const second = await startFresh(provider);
      const conversationId = "resume-fails";
      try {
        provider.reply = { type: "text", text: "One." };
        await streamRun(first.url, userTurn({ conversationId, turn: 1 }));
        provider.reply = { type: "text", text: "Two." };
        const moved = await streamRun(first.url, userTurn({ conversationId, turn: 2 }));
        const checkpoint = lastCheckpoint(moved.events)!;
        const lastGoodBody = provider.fake.requests.at(-1)!.body;
        const expected = await conversationView(first.url, conversationId);

        provider.fake.enqueue(
          { type: "error", status: 500, message: "down" },
          { type: "error", status: 500, message: "down" },
          { type: "error", status: 500, message: "down" },
        );
        const turn3 = {
          ...userTurn({ conversationId, turn: 3 }),
          checkpoint: checkpoint.checkpoint,
        };
        const failed = await streamRun(second.url, turn3);
        expect(runEnded(failed.events)).toMatchObject({
          reason: "failed",
          error: { code: "provider_error" },
        });
        expect((await conversationView(second.url, conversationId)).summary.status).toBe(404);

        provider.reply = { type: "text", text: "Three." };
        const resent = await streamRun(second.url, turn3);
        expect(runEnded(resent.events)).toEqual({ reason: "completed" });
        const stored = await conversationView(second.url, conversationId);
        const history = stored.history.body as { kind: string }[];
        expect(history.slice(0, checkpoint.messages)).toEqual(expected.history.body);
        expect(history.slice(checkpoint.messages).map((message) => message.kind)).toEqual([
          "runtime",
          "assistant",
        ]);
        expect(stored.summary.body).toMatchObject({ messages: checkpoint.messages + 2 });
        expect(
          prefixViolations("openai-responses", [lastGoodBody, provider.fake.requests.at(-1)!.body]),
        ).toEqual([]);
      } finally {
        await first.close();
        await second.close();
        await provider.fake.close();
      }
    });

    // Known gap, pinned: a checkpoint carries turn records but not the conversation's last
    // accepted run, so after a resume `lastRunId` is the run of the latest turn. A `summarize`
    // (which records no turn) is the last accepted run on the original store, not after the move:
    // an `inject-context` with `expectedRunId` of the summarize run is accepted there and refused
    // here. Needs the last run id in the checkpoint (@cursor/checkpoint + @cursor/projection).
    it.fails("keeps the last accepted run (a summarize) across a resume", async () => {
      const provider = await startScriptedProvider();
      const first = await startFresh(provider);
      const second = await startFresh(provider);
      const conversationId = "resume-last-run";
      try {
        provider.reply = { type: "text", text: "One." };
        await streamRun(first.url, userTurn({ conversationId, turn: 1 }));
        provider.reply = { type: "text", text: "Summary: one turn." };
        const summarized = await streamRun(first.url, {
          conversationId,
          runId: "run-summarize",
          mode: "agent",
          action: { type: "summarize" },
        });
        const checkpoint = lastCheckpoint(summarized.events)!.checkpoint;
        const inject = {
          conversationId,
          runId: "run-inject",
          mode: "agent",
          action: {
            type: "inject-context",
            injectionId: "inject-1",
            expectedRunId: "run-summarize",
            text: "The user pinned a file.",
          },
        };
        provider.reply = { type: "text", text: "Noted." };
        const resumed = await streamRun(second.url, { ...inject, checkpoint });
        expect(resumed.status).toBe(200);
      } finally {
        await first.close();
        await second.close();
        await provider.fake.close();
      }
    });
  },
);
