import type { RecordedRequest } from "@cursor/testkit";
import { afterAll, expect, it } from "vitest";
import { agentScript } from "./agent-script.js";
import type { ScriptRequest } from "./agent-script.js";
import { gatewayEnvironment, temporaryFolders } from "./e2e-environment.js";
import { verifyConversation } from "./e2e-helpers.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import type { GatewayProcess } from "./gateway-process.js";
import { cacheShortfalls, historyItems, staticParts } from "./provider-bodies.js";
import { runScriptRequest, startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { randomInt, seededRandom } from "./seeded-random.js";
import { streamRun } from "./sse-run.js";

const folders = temporaryFolders("crash");
afterAll(async () => {
  await killAllGatewayProcesses();
  folders.removeAll();
});

/** Each kill -9 hits two trials: one conversation mid-stream, one waiting for tool results. */
const kills = 10;
const seed = 0x9e3779b9;

/**
 * Two turns, four requests: two tool rounds (one of parallel calls) and a final answer, then a
 * plain turn. The kill point is within the first turn, so every trial has a later turn to check
 * the prefix with.
 */
const scriptFor = (conversationId: string): ScriptRequest[] =>
  agentScript({ conversationId, callIdPrefix: "call", turns: 2, toolOutputLines: 4 });
const killable = 3;
const toolWaits = scriptFor("any")
  .slice(0, killable)
  .flatMap((request, index) => (request.expectedEnd === "awaiting-tools" ? [index] : []));

/** What must be equal between two conversations: the history items and the static parts. */
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

interface Trial {
  readonly conversationId: string;
  readonly script: readonly ScriptRequest[];
  readonly phase: "streaming" | "tool-wait";
  /** The request during (streaming) or after (tool wait) which the process is killed. */
  readonly request: number;
  /** Streaming: kill right after this SSE event (0: run.started, the provider is streaming). */
  readonly afterEvent: number;
  /** Where the client resumes after the restart: the cut-off request again, or the next one. */
  readonly resumeAt: number;
  /** The provider requests this conversation caused. */
  readonly requests: RecordedRequest[];
}

function plannedTrials(): { streaming: Trial; toolWait: Trial }[] {
  const random = seededRandom(seed);
  return Array.from({ length: kills }, (_, kill) => {
    const streamingRequest = randomInt(random, killable);
    const toolWaitRequest = toolWaits[randomInt(random, toolWaits.length)]!;
    const make = (phase: Trial["phase"], request: number, afterEvent: number): Trial => {
      const conversationId = `crash-${kill}-${phase}`;
      return {
        conversationId,
        script: scriptFor(conversationId),
        phase,
        request,
        afterEvent,
        resumeAt: phase === "streaming" ? request : request + 1,
        requests: [],
      };
    };
    return {
      streaming: make("streaming", streamingRequest, randomInt(random, 3)),
      toolWait: make("tool-wait", toolWaitRequest, 0),
    };
  });
}

it(
  `survives kill -9 at ${2 * kills} seeded points during streaming and tool waits`,
  { timeout: 240_000 },
  async () => {
    const provider: ScriptedProvider = await startScriptedProvider();
    const environment = gatewayEnvironment({
      api: "openai-responses",
      fake: provider.fake,
      dataDir: folders.create(),
    });
    let gateway: GatewayProcess = await startGatewayProcess(environment);
    const send = async (trial: Trial | undefined, request: ScriptRequest) => {
      const before = provider.fake.requests.length;
      const result = await runScriptRequest({ baseURL: gateway.url, provider, request });
      trial?.requests.push(...provider.fake.requests.slice(before));
      return result;
    };
    try {
      // The reference: the same script, never interrupted.
      const referenceStart = provider.fake.requests.length;
      for (const request of scriptFor("crash-reference")) await send(undefined, request);
      const reference = provider.fake.requests.slice(referenceStart).map(providerView);
      const stored = ["crash-reference"];
      let cutStreams = 0;

      for (const { streaming, toolWait } of plannedTrials()) {
        // One conversation stops at a tool wait: the client is running its tools.
        for (const request of toolWait.script.slice(0, toolWait.request + 1)) {
          await send(toolWait, request);
        }
        // Another is killed in the middle of a request.
        for (const request of streaming.script.slice(0, streaming.request)) {
          await send(streaming, request);
        }
        const victim = streaming.script[streaming.request]!;
        // Only the victim streams slowly: the kill lands inside the provider stream even on a
        // loaded machine, and the other requests stay fast.
        provider.reply = { type: "slow", delayMsPerEvent: 20, reply: victim.reply };
        const before = provider.fake.requests.length;
        const interrupted = await streamRun(gateway.url, victim.body, {
          onEvent: async (_event, index) => {
            if (index === streaming.afterEvent) await gateway.kill();
          },
        });
        streaming.requests.push(...provider.fake.requests.slice(before));
        // Events written together with the one that triggered the kill may already be read:
        // then the run had finished its work and the kill found it idle.
        if (interrupted.disconnected) cutStreams += 1;
        expect(await gateway.exited).toEqual({ code: null, signal: "SIGKILL" });

        gateway = await startGatewayProcess(environment);
        // Every conversation of the data folder loads and its digest verifies.
        for (const conversationId of stored) await verifyConversation(gateway.url, conversationId);
        stored.push(toolWait.conversationId);
        await verifyConversation(gateway.url, toolWait.conversationId);
        if (streaming.request > 0) {
          stored.push(streaming.conversationId);
          await verifyConversation(gateway.url, streaming.conversationId);
        }

        // The clients go on: the cut-off request is sent again, the tool results arrive.
        for (const trial of [streaming, toolWait]) {
          for (const request of trial.script.slice(trial.resumeAt)) await send(trial, request);
        }
        if (!stored.includes(streaming.conversationId)) stored.push(streaming.conversationId);
        for (const trial of [streaming, toolWait]) {
          await verifyConversation(gateway.url, trial.conversationId);
          // The provider saw exactly the uninterrupted session: no duplicate, nothing lost,
          // the prefix kept; a retried call re-sends the very body it was cut off in.
          const label = `${trial.conversationId} ${JSON.stringify({ request: trial.request, afterEvent: trial.afterEvent })}`;
          expect(distinct(trial.requests.map(providerView)), label).toEqual(reference);
          expect(cacheShortfalls(trial.requests.slice(1)), label).toEqual([]);
        }
      }
      expect(cutStreams).toBeGreaterThanOrEqual(kills / 3);
    } finally {
      await gateway.stop();
      await provider.fake.close();
    }
  },
);
