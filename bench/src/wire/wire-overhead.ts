import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeReply } from "@cursor/testkit";
import { ScriptedIdeClient } from "@cursor/wire/testing";
import type { RunSessionEvent } from "../growth/canonical-conversation.js";
import { launchGateway, unlimitedContextWindow } from "../harness/gateway-harness.js";
import { sendSessionRequest } from "../harness/gateway-http.js";
import { FakeProviderProcess } from "../overhead/fake-provider-process.js";
import { seededConversation } from "../overhead/seeded-conversation.js";
import { mean, quantile } from "../stats.js";
import { cursorRequestContext, cursorSessionSteps } from "./cursor-session.js";

export interface WireHistoryRow {
  readonly historyTurns: number;
  /** Turns measured through each front door (the same turns, one provider call each). */
  readonly samples: number;
  readonly jsonP50Ms: number;
  readonly jsonP95Ms: number;
  /** Wire turns whose run request attaches no blobs (the gateway stores the conversation). */
  readonly wireP50Ms: number;
  readonly wireP95Ms: number;
  /** Quantiles of (wire − JSON) per pair of equal turns. */
  readonly addedP50Ms: number;
  readonly addedP95Ms: number;
  /**
   * Wire turns whose run request attaches every blob the state references (`pre_fetched_blobs`,
   * what some IDE builds may do): the IDE encodes, and the gateway receives, the whole history.
   */
  readonly attachedP50Ms: number;
  readonly attachedAddedP50Ms: number;
  readonly attachedAddedP95Ms: number;
  /** KV traffic of identical short turns at this history length (the checkpoint's blobs). */
  readonly kv: {
    readonly turns: number;
    readonly meanBytes: number;
    readonly maxBytes: number;
    readonly meanBlobs: number;
    /** Root entries of the last checkpoint: its ids grow with the history, its KV does not. */
    readonly rootEntries: number;
  };
}

type SingleCallTurn = RunSessionEvent & { readonly type: "user-turn" };

/**
 * Part 6b: at `historyTurns` turns of history, the latency the Cursor wire adds to a turn and
 * the KV bytes a turn sends. Two conversations get the same history (resumed from one client
 * checkpoint each); then the same single-call user turns go to one through `POST /v1/runs` and
 * to the other through the wire (RunSSE + BidiAppend, checkpoints with their KV barrier), in
 * alternation, against the fake provider in its own process. The wire conversation's first
 * turn hands the IDE every blob of the history (setup, not measured); then `kvTurns` identical
 * short turns show what a turn costs in KV at this length.
 */
export async function measureWireAtHistory({
  historyTurns,
  samples,
  kvTurns,
  seed,
  toolResultChars,
  onProgress,
}: {
  historyTurns: number;
  samples: number;
  kvTurns: number;
  seed: number;
  toolResultChars: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<WireHistoryRow> {
  const seeds = ["json", "wire"].map((front) =>
    seededConversation({
      conversationId: `${front}-${historyTurns}`,
      historyTurns,
      // About one user turn in four needs a single model call (no tool round); the wire side
      // uses two per sample.
      followingTurns: samples * 12 + 24,
      seed,
      toolResultChars,
    }),
  );
  const fake = await FakeProviderProcess.start();
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-wire-"));
  const gateway = await launchGateway({
    provider: "openai-responses",
    providerURL: fake.openaiBaseURL,
    dataDir,
    contextWindow: unlimitedContextWindow,
  });
  const [json, wire] = seeds as [(typeof seeds)[0], (typeof seeds)[0]];
  const single = (events: readonly RunSessionEvent[]) =>
    events.filter(
      (event): event is SingleCallTurn =>
        event.type === "user-turn" &&
        event.expectedEnd === "completed" &&
        event.replies.length === 1,
    );
  const jsonTurns = single(json.next);
  const wireTurns = single(wire.next);
  const ide = new ScriptedIdeClient({
    fetch: (url, init) => fetch(url, init),
    baseUrl: gateway.url,
  });
  const wireTurn = async (event: SingleCallTurn, { prefetch }: { prefetch: boolean }) => {
    await fake.enqueue(event.replies);
    const [step] = cursorSessionSteps([event]);
    if (step === undefined || step.kind === "restart") throw new Error("not a Cursor turn");
    const turn = await ide.runTurn({
      conversationId: wire.conversationId,
      prefetch,
      ...step.input,
    });
    if (turn.end.error !== undefined) {
      throw new Error(`wire turn of event ${event.index} ended ${JSON.stringify(turn.end)}`);
    }
    return turn;
  };
  const jsonTurn = async (event: SingleCallTurn, checkpoint?: string) => {
    await fake.enqueue(event.replies);
    await sendSessionRequest({
      baseURL: gateway.url,
      body: checkpoint === undefined ? event.body : { ...event.body, checkpoint },
      expectedEnd: event.expectedEnd,
      onDeviation: (message) => {
        throw new Error(message);
      },
    });
  };
  try {
    if (jsonTurns.length < samples + 2 || wireTurns.length < 2 * samples + 2) {
      throw new Error(`the seeded session has too few single-call turns for ${samples} samples`);
    }
    // Setup: both conversations resumed from their checkpoints (the store now has them), then
    // the wire's first turn sends the IDE every blob of its history.
    await jsonTurn(jsonTurns[0]!, json.checkpoint);
    await jsonTurn(wireTurns[0]!, wire.checkpoint);
    await wireTurn(wireTurns[1]!, { prefetch: false });
    await jsonTurn(jsonTurns[1]!);
    await fake.reset();
    const jsonMs: number[] = [];
    const wireMs: number[] = [];
    const attachedMs: number[] = [];
    for (let index = 0; index < samples; index += 1) {
      onProgress?.(index, samples + kvTurns);
      const t0 = performance.now();
      await jsonTurn(jsonTurns[index + 2]!);
      const t1 = performance.now();
      await wireTurn(wireTurns[2 * index + 2]!, { prefetch: false });
      const t2 = performance.now();
      await wireTurn(wireTurns[2 * index + 3]!, { prefetch: true });
      const t3 = performance.now();
      jsonMs.push(t1 - t0);
      wireMs.push(t2 - t1);
      attachedMs.push(t3 - t2);
      await fake.reset();
    }
    // Identical short turns (the request context unchanged), so only the history length varies.
    const requestContext = [...wireTurns]
      .slice(0, 2 * samples + 2)
      .reverse()
      .find((event) => event.body.requestContext !== undefined)?.body.requestContext;
    const kvBytes: number[] = [];
    const kvBlobs: number[] = [];
    let rootEntries = 0;
    const reply: FakeReply = {
      type: "text",
      text: "Checked: nothing changed since the last turn.",
    };
    for (let index = 0; index < kvTurns; index += 1) {
      onProgress?.(samples + index, samples + kvTurns);
      await fake.enqueue([reply]);
      const turn = await ide.runTurn({
        conversationId: wire.conversationId,
        prefetch: false,
        text: `Status check ${index}: is the build still green?`,
        mode: "agent",
        ...(requestContext === undefined
          ? {}
          : { requestContext: cursorRequestContext(requestContext) }),
      });
      if (turn.end.error !== undefined)
        throw new Error(`KV turn ${index}: ${JSON.stringify(turn.end)}`);
      kvBytes.push(turn.kv.bytesSet);
      kvBlobs.push(turn.kv.setBlobIds.length);
      rootEntries = turn.checkpoints.at(-1)?.rootPromptMessagesJson.length ?? rootEntries;
      await fake.reset();
    }
    onProgress?.(samples + kvTurns, samples + kvTurns);
    const added = wireMs.map((ms, index) => ms - jsonMs[index]!);
    const attachedAdded = attachedMs.map((ms, index) => ms - jsonMs[index]!);
    return {
      historyTurns,
      samples: jsonMs.length,
      jsonP50Ms: quantile(jsonMs, 0.5),
      jsonP95Ms: quantile(jsonMs, 0.95),
      wireP50Ms: quantile(wireMs, 0.5),
      wireP95Ms: quantile(wireMs, 0.95),
      addedP50Ms: quantile(added, 0.5),
      addedP95Ms: quantile(added, 0.95),
      attachedP50Ms: quantile(attachedMs, 0.5),
      attachedAddedP50Ms: quantile(attachedAdded, 0.5),
      attachedAddedP95Ms: quantile(attachedAdded, 0.95),
      kv: {
        turns: kvTurns,
        meanBytes: mean(kvBytes),
        maxBytes: Math.max(...kvBytes),
        meanBlobs: mean(kvBlobs),
        rootEntries,
      },
    };
  } finally {
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
