import type { AgentSession, CacheTotals } from "@cursor/testkit";
import type { ToolRoundResult } from "@cursor/wire";
import { ScriptedIdeClient } from "@cursor/wire/testing";
import type { IdeTurnResult } from "@cursor/wire/testing";
import { GatewayHarness } from "../harness/gateway-harness.js";
import type { BenchProvider } from "../harness/gateway-harness.js";
import { cursorSessionSteps } from "./cursor-session.js";
import type { CursorSessionTurn } from "./cursor-session.js";

export interface WirePrefixResult {
  readonly provider: BenchProvider;
  /** Cursor turns (RunSSE streams), tool rounds, provider calls. */
  readonly turns: number;
  readonly toolRounds: number;
  readonly providerCalls: number;
  readonly compactions: number;
  readonly restarts: number;
  /** What the fake provider measured for the bodies the gateway sent for the wire's turns. */
  readonly measured: CacheTotals & { readonly prefixEfficiencyOutsideCompaction: number };
  /** KV traffic of the whole session: blob bytes and count set, blobs asked for. */
  readonly kv: { readonly bytesSet: number; readonly blobsSet: number; readonly blobsGot: number };
  readonly deviations: readonly string[];
  readonly seconds: number;
}

/**
 * Part 6a: the generated session of part 1 driven through the Cursor wire instead of
 * `POST /v1/runs`: a scripted IDE (RunSSE + BidiAppend over HTTP) sends each user turn with its
 * Cursor request context, a tool bridge answers each tool round with the session's results, the
 * same fake provider prices every call. Equal prefix efficiency means the wire re-solves nothing.
 */
export async function measureWirePrefixEfficiency({
  provider,
  session,
  contextWindow,
  onProgress,
}: {
  provider: BenchProvider;
  session: AgentSession;
  contextWindow: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<WirePrefixResult> {
  const started = performance.now();
  const steps = cursorSessionSteps(session.events);
  let now = Date.parse("2026-11-29T09:00:00Z");
  // The results the IDE gives the current turn's tool rounds, in order.
  let rounds: (readonly ToolRoundResult[])[] = [];
  const harness = await GatewayHarness.start({
    provider,
    contextWindow,
    clock: () => now,
    toolBridge: () => ({
      runRound: (calls) => {
        const results = rounds.shift();
        if (results === undefined) {
          return Promise.reject(
            new Error(`no scripted results for a round of ${calls.length} calls`),
          );
        }
        return Promise.resolve(results);
      },
      deliver: () => undefined,
    }),
  });
  const client = (blobs?: ScriptedIdeClient) => {
    const ide = new ScriptedIdeClient({
      fetch: (url, init) => fetch(url, init),
      baseUrl: harness.url,
      ...(blobs === undefined ? {} : { blobStore: blobs.blobs }),
    });
    if (blobs !== undefined)
      ide.setState(session.conversationId, blobs.stateOf(session.conversationId));
    return ide;
  };
  let ide = client();
  const deviations: string[] = [];
  const kv = { bytesSet: 0, blobsSet: 0, blobsGot: 0 };
  let turns = 0;
  let toolRounds = 0;
  let compactions = 0;
  let restarts = 0;
  let compactionCached = 0;
  let compactionBest = 0;
  const runTurn = async (step: CursorSessionTurn, input = step.input): Promise<IdeTurnResult> => {
    rounds = step.rounds.map((results) =>
      results.map((result) => ({
        callId: result.callId,
        output: result.output,
        isError: result.isError === true,
      })),
    );
    harness.replies.push(step.replies);
    return ide.runTurn({ conversationId: session.conversationId, ...input });
  };
  try {
    for (const [position, step] of steps.entries()) {
      onProgress?.(position, steps.length);
      if (step.kind === "restart") {
        await harness.restart();
        ide = client(ide);
        restarts += 1;
        continue;
      }
      now = Date.parse(step.timestamp);
      const before = harness.fake.requests.length;
      let turn = await runTurn(step);
      const action = step.input.action?.action;
      if (
        turn.end.error?.code === "failed_precondition" &&
        action?.case === "injectContextAction" &&
        action.value.expectedRunId !== ""
      ) {
        // The session generator's one known disagreement with the gateway (see part 1).
        deviations.push(
          `event ${step.index}: inject-context with expectedRunId ${String(action.value.expectedRunId)} refused (${turn.end.error.message}); resent without it`,
        );
        turn = await runTurn(step, {
          ...step.input,
          action: { action: { ...action, value: { ...action.value, expectedRunId: "" } } },
        });
      }
      if (turn.end.error !== undefined || turn.appendErrors.length > 0) {
        throw new Error(
          `Cursor turn of event ${step.index} (${step.kind}) ended ${JSON.stringify(turn.end)} ${JSON.stringify(turn.appendErrors)}`,
        );
      }
      if (harness.replies.pending > 0 || rounds.length > 0) {
        throw new Error(
          `event ${step.index}: ${harness.replies.pending} scripted replies and ${rounds.length} rounds unused`,
        );
      }
      turns += 1;
      toolRounds += step.rounds.length;
      kv.bytesSet += turn.kv.bytesSet;
      kv.blobsSet += turn.kv.setBlobIds.length;
      kv.blobsGot += turn.kv.getBlobIds.length;
      if (turn.sequence.includes("summaryStarted")) {
        compactions += 1;
        for (const request of harness.fake.requests.slice(before)) {
          compactionCached += request.cache?.cachedTokens ?? 0;
          compactionBest += request.cache?.bestPossibleCachedTokens ?? 0;
        }
      }
    }
    onProgress?.(steps.length, steps.length);
    const total = harness.fake.cacheStats().total;
    const outsideBest = total.bestPossibleCachedTokens - compactionBest;
    return {
      provider,
      turns,
      toolRounds,
      providerCalls: harness.fake.requests.length,
      compactions,
      restarts,
      measured: {
        ...total,
        prefixEfficiencyOutsideCompaction:
          outsideBest === 0 ? 1 : (total.cachedTokens - compactionCached) / outsideBest,
      },
      kv,
      deviations,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await harness.close();
  }
}
