import type { RecordedRequest } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresTestURL, postgresTitleSuffix } from "../store/postgres-test-database.js";
import { agentScript } from "./agent-script.js";
import type { ScriptRequest } from "./agent-script.js";
import {
  gatewayEnvironment,
  temporaryFolders,
  testCheckpointSecret,
  testProviderKey,
} from "./e2e-environment.js";
import { conversationView, userTurn, verifyConversation } from "./e2e-helpers.js";
import { e2eStores } from "./e2e-stores.js";
import type { E2eStore } from "./e2e-stores.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import {
  bodyTexts,
  cacheShortfalls,
  historyItems,
  prefixViolations,
  staticParts,
} from "./provider-bodies.js";
import {
  checkScriptResult,
  runScriptRequest,
  startScriptedProvider,
  unexpectedCall,
} from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { randomInt, seededRandom } from "./seeded-random.js";
import { runEnded, streamRun } from "./sse-run.js";
import type { StreamedRun } from "./sse-run.js";

/**
 * Several gateway processes on one PostgreSQL database, as behind a load balancer: the
 * conversation moves between processes on every request, two processes race for one
 * conversation, and the process holding a run dies (kill -9) or freezes (SIGSTOP) mid-stream.
 */
const folders = temporaryFolders("multi");
const stores = e2eStores();
afterAll(async () => {
  await killAllGatewayProcesses();
  await stores.dropAll();
  folders.removeAll();
});

/** Short, so a frozen process's lease lapses within a test; renewed every second. */
const leaseSeconds = 3;

// The embedded SQLite store serves one process: this suite is about the shared one.
describe.skipIf(postgresTestURL === undefined)(
  `two gateway processes on one PostgreSQL database${postgresTitleSuffix}`,
  () => {
    let provider: ScriptedProvider;
    let store: E2eStore;
    let environment: Record<string, string>;
    const processes: GatewayProcess[] = [];

    beforeAll(async () => {
      provider = await startScriptedProvider();
      store = await stores.create({ kind: "postgresql", dataDir: folders.create() });
      environment = gatewayEnvironment({
        api: "openai-responses",
        fake: provider.fake,
        dataDir: store.dataDir,
        extra: { ...store.environment, CURSOR_GATEWAY_RUN_LEASE_SECONDS: String(leaseSeconds) },
      });
      // Started together: they race for the migrations (one applies them, under the lock).
      processes.push(
        ...(await Promise.all([
          startGatewayProcess(environment),
          startGatewayProcess(environment),
        ])),
      );
    });

    afterAll(async () => {
      for (const gateway of processes) await gateway.stop();
      await provider.fake.close();
    });

    it(
      "serves a 20-turn session alternating between the processes on every request, bodies as from one process",
      { timeout: 120_000 },
      async () => {
        const conversationId = "alternating";
        const script = agentScript({ conversationId, callIdPrefix: "call" });
        // The reference: the same script through one gateway (in this process, SQLite).
        const referenceProvider = await startScriptedProvider();
        const single = await startInProcessGateway({
          provider: referenceProvider,
          dataDir: folders.create(),
          // The deployment's secret: the prompt-cache scope of a tenant is derived from it.
          extra: { CURSOR_GATEWAY_CHECKPOINT_SECRET: testCheckpointSecret },
        });
        try {
          for (const request of script) {
            await runScriptRequest({ baseURL: single.url, provider: referenceProvider, request });
          }
        } finally {
          await single.close();
          await referenceProvider.fake.close();
        }
        const reference = bodyTexts(referenceProvider.fake.requests);

        const start = provider.fake.requests.length;
        for (const [index, request] of script.entries()) {
          await runScriptRequest({ baseURL: processes[index % 2]!.url, provider, request });
        }
        const recorded = provider.fake.requests.slice(start);
        expect(recorded).toHaveLength(script.length);
        // Every body extends the one before, whichever process sent it: exactly the bodies one
        // process sends, and the cache read the best possible on every call.
        expect(
          prefixViolations(
            "openai-responses",
            recorded.map((request) => request.body),
          ),
        ).toEqual([]);
        expect(bodyTexts(recorded)).toEqual(reference);
        expect(cacheShortfalls(recorded.slice(1))).toEqual([]);
        // Both processes see the same verified conversation.
        const [a, b] = await Promise.all(
          processes.map((gateway) => verifyConversation(gateway.url, conversationId)),
        );
        expect(a).toEqual(b);
        expect(await store.contains(testProviderKey)).toBe(false);
        for (const gateway of processes) expect(gateway.output()).not.toContain(testProviderKey);
      },
    );

    it("runs exactly one of two runs of a conversation started at the same moment on the two processes; the other gets 409", async () => {
      const rounds = 10;
      for (let round = 0; round < rounds; round += 1) {
        const conversationId = `race-${round}`;
        provider.reply = { type: "text", text: "The first answer." };
        const first = await streamRun(
          processes[round % 2]!.url,
          userTurn({ conversationId, turn: 1 }),
        );
        expect(runEnded(first.events)).toEqual({ reason: "completed" });
        const before = await verifyConversation(processes[0]!.url, conversationId);
        const calls = provider.fake.requests.length;
        // Two clients, two different runs from the same head, one on each process.
        provider.reply = {
          type: "slow",
          delayMsPerEvent: 40,
          reply: { type: "text", text: "One of the two answers.", chunks: 6 },
        };
        const bodies = [0, 1].map((client) =>
          userTurn({
            conversationId,
            turn: 2,
            runId: `run-2-client-${client}`,
            text: `Client ${client} asks at the same moment.`,
          }),
        );
        const results: StreamedRun[] = await Promise.all(
          processes.map((gateway, index) => streamRun(gateway.url, bodies[index])),
        );
        provider.reply = unexpectedCall;
        const statuses = results.map((result) => result.status).sort();
        expect(statuses, `round ${round}`).toEqual([200, 409]);
        const winner = results.find((result) => result.status === 200)!;
        const loser = results.find((result) => result.status === 409)!;
        expect(runEnded(winner.events)).toEqual({ reason: "completed" });
        expect((loser.body as { error: { code: string } }).error.code).toBe("conflict");
        // One provider call, one turn stored (two messages on top of the first turn's).
        expect(provider.fake.requests.length - calls).toBe(1);
        const after = await verifyConversation(processes[1]!.url, conversationId);
        expect(after.messages).toBe(before.messages + 2);
      }
    });

    it(
      "survives kill -9 of the process holding a run at 20 seeded points: the other serves the retry, nothing lost or stored twice",
      { timeout: 240_000 },
      async () => {
        await killTrials({ provider, environment, processes, mode: "kill" });
      },
    );

    it(
      "takes over from a frozen process (SIGSTOP) once its lease lapses; the frozen one's late writes are refused",
      { timeout: 120_000 },
      async () => {
        await killTrials({ provider, environment, processes, mode: "freeze" });
      },
    );
  },
);

/** Two turns, four requests: two tool rounds (one of parallel calls), an answer, a plain turn. */
const scriptFor = (conversationId: string): ScriptRequest[] =>
  agentScript({ conversationId, callIdPrefix: "call", turns: 2, toolOutputLines: 4 });
/** The kill lands in one of the first turn's three requests: a later one checks the prefix. */
const killable = 3;

function providerView(request: RecordedRequest): string {
  return JSON.stringify({
    items: historyItems("openai-responses", request.body),
    static: staticParts("openai-responses", request.body),
  });
}

/** A retried call sends the body of the interrupted one again: count it once. */
function distinct(views: readonly string[]): string[] {
  return views.filter((view, index) => index === 0 || view !== views[index - 1]);
}

/** Sends `request` to `gateway` as a client whose first try failed: again while it is 409. */
async function retryUntilAccepted({
  gateway,
  provider,
  request,
  timeoutMs,
}: {
  gateway: GatewayProcess;
  provider: ScriptedProvider;
  request: ScriptRequest;
  timeoutMs: number;
}): Promise<{ result: StreamedRun; refusals: number; waitedMs: number }> {
  const started = Date.now();
  for (let refusals = 0; ; refusals += 1) {
    provider.reply = request.reply;
    const result = await streamRun(gateway.url, request.body);
    provider.reply = unexpectedCall;
    if (result.status !== 409) return { result, refusals, waitedMs: Date.now() - started };
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${request.label}: still 409 after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Trials on fresh conversations: the first requests alternate between the processes, the
 * victim request goes to one of them (seeded) streaming slowly, and that process is killed
 * (kill -9) or frozen (SIGSTOP) after a seeded event. The client sends the request again to the
 * other process until it is accepted, then finishes the script alternating again. The provider
 * must have seen exactly the uninterrupted session, the conversation must verify on both.
 */
async function killTrials({
  provider,
  environment,
  processes,
  mode,
}: {
  provider: ScriptedProvider;
  environment: Record<string, string>;
  processes: GatewayProcess[];
  mode: "kill" | "freeze";
}): Promise<void> {
  const trials = mode === "kill" ? 20 : 4;
  const random = seededRandom(mode === "kill" ? 0x6b696c6c : 0x66727a65);
  const referenceId = `${mode}-reference`;
  const send = async (request: ScriptRequest, index: number, views?: string[]) => {
    const before = provider.fake.requests.length;
    const result = await runScriptRequest({
      baseURL: processes[index % 2]!.url,
      provider,
      request,
    });
    views?.push(...provider.fake.requests.slice(before).map(providerView));
    return result;
  };
  const referenceStart = provider.fake.requests.length;
  for (const [index, request] of scriptFor(referenceId).entries()) await send(request, index);
  const reference = provider.fake.requests.slice(referenceStart).map(providerView);
  const referenceHistory = (await conversationView(processes[0]!.url, referenceId)).history.body;
  let cut = 0;
  const waits: number[] = [];
  // A warm spare takes a killed process's place (as a balancer's next instance would), so the
  // trials do not wait for process starts.
  let spare = mode === "kill" ? startGatewayProcess(environment) : undefined;

  for (let trial = 0; trial < trials; trial += 1) {
    const conversationId = `${mode}-${trial}`;
    const script = scriptFor(conversationId);
    const victimIndex = randomInt(random, killable);
    const afterEvent = randomInt(random, 3);
    const holder = randomInt(random, 2);
    const other = 1 - holder;
    const label = `${conversationId} ${JSON.stringify({ victimIndex, afterEvent, holder })}`;
    const views: string[] = [];
    for (const [index, request] of script.slice(0, victimIndex).entries()) {
      await send(request, index, views);
    }
    const victim = script[victimIndex]!;
    const holding = processes[holder]!;
    const before = provider.fake.requests.length;
    let interrupted: Promise<StreamedRun>;
    if (mode === "kill") {
      provider.reply = { type: "slow", delayMsPerEvent: 25, reply: victim.reply };
      const result = await streamRun(holding.url, victim.body, {
        onEvent: async (_event, index) => {
          if (index === afterEvent) await holding.kill();
        },
      });
      if (result.disconnected) cut += 1;
      expect(await holding.exited).toEqual({ code: null, signal: "SIGKILL" });
      interrupted = Promise.resolve(result);
    } else {
      // Frozen while its provider call streams, before anything of the run is committed.
      provider.reply = { type: "slow", delayMsPerEvent: 150, reply: victim.reply };
      interrupted = streamRun(holding.url, victim.body);
      await waitUntil(() => provider.fake.requests.length > before);
      process.kill(holding.pid, "SIGSTOP");
    }

    // The client sends the cut-off request again, to the other process.
    const retried = await retryUntilAccepted({
      gateway: processes[other]!,
      provider,
      request: victim,
      timeoutMs: (leaseSeconds + 10) * 1000,
    });
    checkScriptResult(victim, retried.result);
    waits.push(retried.waitedMs);
    if (mode === "freeze") {
      // A live lease is honoured: the frozen process's run blocked the conversation until it
      // lapsed.
      expect(retried.refusals, label).toBeGreaterThan(0);
      expect(retried.waitedMs, label).toBeGreaterThanOrEqual(leaseSeconds * 1000 - 1000);
      // It wakes up: its late write is refused, its run ends as a conflict the client retries.
      process.kill(holding.pid, "SIGCONT");
      const late = await interrupted;
      expect(late.status).toBe(200);
      expect(runEnded(late.events), label).toMatchObject({
        reason: "failed",
        error: { code: "conflict" },
      });
    }
    views.push(...provider.fake.requests.slice(before).map(providerView));

    // The killed process comes back (another instance behind the balancer), the client goes on.
    if (spare !== undefined) {
      processes[holder] = await spare;
      spare = trial + 1 < trials ? startGatewayProcess(environment) : undefined;
    }
    for (const [offset, request] of script.slice(victimIndex + 1).entries()) {
      await send(request, victimIndex + 1 + offset, views);
    }
    // The provider saw exactly the uninterrupted session: no duplicate, nothing lost, the
    // prefix kept (a retried call re-sends the very body it was cut off in).
    expect(distinct(views), label).toEqual(reference);
    const [a, b] = await Promise.all(
      processes.map((gateway) => verifyConversation(gateway.url, conversationId)),
    );
    expect(a, label).toEqual(b);
    expect((await conversationView(processes[0]!.url, conversationId)).history.body, label).toEqual(
      referenceHistory,
    );
  }
  if (mode === "kill") {
    expect(cut).toBeGreaterThanOrEqual(trials / 3);
    // A dead process's lease is free at once (its liveness session ended): far below the lease.
    expect(Math.max(...waits)).toBeLessThan(leaseSeconds * 1000);
  }
}

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
