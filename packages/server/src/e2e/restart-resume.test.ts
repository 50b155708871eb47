import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { agentScript } from "./agent-script.js";
import type { ScriptRequest } from "./agent-script.js";
import { gatewayEnvironment, temporaryFolders, testCheckpointSecret } from "./e2e-environment.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import { bodyTexts, cacheShortfalls, prefixViolations } from "./provider-bodies.js";
import { runScriptRequest, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { lastCheckpoint } from "./sse-run.js";

const conversationId = "restart-conversation";
// 12 turns, 20 requests: tool rounds, the A → B → A context change, a mode switch, a background
// completion and an injected event whose `expectedRunId` checks the head's last run.
const script = agentScript({ conversationId, callIdPrefix: "call", turns: 12 });
const folders = temporaryFolders("restart");

function environment(provider: ScriptedProvider, dataDir: string) {
  return gatewayEnvironment({
    api: "openai-responses",
    fake: provider.fake,
    dataDir,
    extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
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
let reference: { bodies: string[]; history: unknown };

beforeAll(async () => {
  const provider = await startScriptedProvider();
  const gateway = await startGatewayProcess(environment(provider, folders.create()));
  try {
    for (const request of script) {
      await runScriptRequest({ baseURL: gateway.url, provider, request });
    }
    reference = {
      bodies: bodyTexts(provider.fake.requests),
      history: (await conversation(gateway)).history.body,
    };
    expect(
      prefixViolations(
        "openai-responses",
        provider.fake.requests.map((r) => r.body),
      ),
    ).toEqual([]);
  } finally {
    await gateway.stop();
    await provider.fake.close();
  }
});

afterAll(async () => {
  await killAllGatewayProcesses();
  folders.removeAll();
});

describe("restart on the same data folder", () => {
  it("continues after a turn boundary and a tool wait with the same bodies as without restarts", async () => {
    const provider = await startScriptedProvider();
    const dataDir = folders.create();
    // Stop (SIGTERM) and start again after turn 3, at turn 9's tool wait, and before the
    // injected event of turn 11 (its expectedRunId must match the restored head).
    const restartAfter = new Set([
      indexOf("turn 3 tool results 1"),
      indexOf("turn 9"),
      indexOf("turn 10"),
    ]);
    let gateway = await startGatewayProcess(environment(provider, dataDir));
    try {
      for (const [index, request] of script.entries()) {
        await runScriptRequest({ baseURL: gateway.url, provider, request });
        if (!restartAfter.has(index)) continue;
        const before = await conversation(gateway);
        expect(await gateway.stop()).toEqual({ code: 0, signal: null });
        gateway = await startGatewayProcess(environment(provider, dataDir));
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
  });
});

describe("resume from a client checkpoint on a fresh data folder", () => {
  it("sends the same bodies as without the move, at a turn boundary and at a tool wait", async () => {
    const provider = await startScriptedProvider();
    const resumeAt = new Set([indexOf("turn 11"), indexOf("turn 12 tool results 1")]);
    let gateway = await startGatewayProcess(environment(provider, folders.create()));
    let checkpoint: string | undefined;
    try {
      for (const [index, scripted] of script.entries()) {
        let request: ScriptRequest = scripted;
        if (resumeAt.has(index)) {
          // The client moves to another gateway process that has never seen the conversation
          // (the first process is gone with its store): only the checkpoint carries it.
          await gateway.kill();
          gateway = await startGatewayProcess(environment(provider, folders.create()));
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
  });
});
