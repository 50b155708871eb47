import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MemoryBlobStore,
  createCheckpointState,
  encodeCheckpointDelta,
  writeCheckpoint,
} from "@cursor/checkpoint";
import type { CheckpointDeltaBase, CheckpointRef } from "@cursor/checkpoint";
import type { TurnRecord } from "@cursor/projection";
import { canonicalJson, emptyHeadDigest, toModelRequest } from "@cursor/run";
import type { CanonicalMessage, ProviderAdapter } from "@cursor/run";
import { SqliteStore } from "@cursor/server";
import type { AppendMessagesInput, HeadVersion, StoredRun } from "@cursor/server";
import { generateAgentSession } from "@cursor/testkit";
import type { BenchProvider } from "../harness/gateway-harness.js";
import { benchCheckpointSecret } from "../harness/gateway-harness.js";
import { promptSpecFor } from "../harness/prompt-spec-for.js";
import { serializingAdapter } from "../harness/provider-adapters.js";
import { mean, median } from "../stats.js";
import { CanonicalConversation } from "./canonical-conversation.js";
import type { AppliedEvent } from "./canonical-conversation.js";
import { StoreWriteMeter } from "./store-write-meter.js";

export const growthProviders: readonly BenchProvider[] = [
  "openai-responses",
  "openai-chat",
  "anthropic",
];

/** Per-call costs at one history length (medians over the calls of the window). */
export interface GrowthRow {
  /** User turns in the history when the window starts. */
  readonly historyTurns: number;
  /** Canonical messages in the history when the window starts. */
  readonly historyMessages: number;
  /** Model calls measured. */
  readonly calls: number;
  readonly prepareMs: number;
  readonly appendMs: number;
  readonly projectMs: number;
  readonly serializeMs: Readonly<Record<BenchProvider, number>>;
  /** The floor: `JSON.stringify` of the body the adapter produced. */
  readonly stringifyMs: Readonly<Record<BenchProvider, number>>;
  readonly bodyBytes: Readonly<Record<BenchProvider, number>>;
  /** (prepare + append + project + serialise) ÷ stringify, per provider. */
  readonly ratio: Readonly<Record<BenchProvider, number>>;
  /** Requests (gateway runs) measured for the write figures. */
  readonly requests: number;
  /** Mean canonical JSON bytes of the messages a request adds (what must be written at least). */
  readonly newContentBytes: number;
  readonly checkpointBytes: number;
  readonly checkpointMs: number;
  /** The client's `checkpoint.delta` token of the request (from the previous request's head). */
  readonly deltaTokenBytes?: number;
  readonly deltaTokenMs?: number;
  readonly storeBytes: number;
  readonly storeMs: number;
}

export interface GrowthOptions {
  readonly marks: readonly number[];
  /** User turns measured after each mark. */
  readonly windowTurns: number;
  readonly toolResultChars: number;
  readonly seed: number;
  readonly onProgress?: (done: number, total: number) => void;
}

const measuredConversationId = "bench-growth";

const tenant = "local";
const model = "gpt-5";

interface WindowSamples {
  historyTurns: number;
  historyMessages: number;
  prepare: number[];
  append: number[];
  project: number[];
  serialize: Record<BenchProvider, number[]>;
  stringify: Record<BenchProvider, number[]>;
  bodyBytes: Record<BenchProvider, number[]>;
  newContent: number[];
  checkpointBytes: number[];
  checkpointMs: number[];
  deltaBytes: number[];
  deltaMs: number[];
  storeBytes: number[];
  storeMs: number[];
}

const perProvider = <T>(make: () => T): Record<BenchProvider, T> =>
  Object.fromEntries(growthProviders.map((p) => [p, make()])) as Record<BenchProvider, T>;

/**
 * Parts 2 and 3 of the benchmark: one generated session replayed into a canonical conversation
 * up to the largest mark; around each mark, every model call's prepare, append, project and
 * serialise (all three provider packages) is timed against `JSON.stringify` of the final body,
 * and every request is written to a checkpoint blob store (`writeCheckpoint`, chained from the
 * previous checkpoint) and to the gateway's SQLite store, as the gateway commits it.
 */
export async function measureGrowth(options: GrowthOptions): Promise<GrowthRow[]> {
  // Warm-up: a gateway that has served requests runs optimised code. Without this, the first
  // mark (10 turns, about 30 requests after the process started) would time code the JIT has
  // barely seen, against a `JSON.stringify` that is native from the start.
  await replayGrowthSession({
    ...options,
    marks: [growthWarmUpTurns],
    seed: options.seed + 1000,
    conversationId: `${measuredConversationId}-warm-up`,
    onProgress: undefined,
  });
  return replayGrowthSession({ ...options, conversationId: measuredConversationId });
}

/** User turns of the untimed warm-up session `measureGrowth` replays before the measured one. */
export const growthWarmUpTurns = 100;

async function replayGrowthSession(
  options: GrowthOptions & { readonly conversationId: string },
): Promise<GrowthRow[]> {
  const { conversationId } = options;
  const lastMark = Math.max(...options.marks);
  const session = generateAgentSession({
    seed: options.seed,
    turns: lastMark + options.windowTurns,
    conversationId,
    toolResultChars: options.toolResultChars,
    features: { compaction: false, restarts: false },
  });
  const firstTurn = session.events.find((e) => e.type === "user-turn");
  // One prompt spec for the whole conversation: every context variant has the same MCP servers.
  const promptSpec = promptSpecFor(firstTurn?.body.requestContext);
  const conversation = new CanonicalConversation({ conversationId, promptSpec });
  const adapters = Object.fromEntries(
    growthProviders.map((provider) => [provider, serializingAdapter(provider)]),
  ) as Record<BenchProvider, ProviderAdapter>;

  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-growth-"));
  const storePath = join(dataDir, "gateway.sqlite");
  const store = new SqliteStore({ path: storePath });
  const meter = new StoreWriteMeter(storePath);
  const blobs = new MemoryBlobStore();
  let checkpointRef: CheckpointRef | undefined;
  let version: HeadVersion | null = null;
  // Messages and turn records not in the store yet (outside the windows the store catches up in
  // one commit: the end state is the same, the benchmark is much faster).
  let unstored: { messages: CanonicalMessage[]; turns: TurnRecord[]; lastRunId?: string } = {
    messages: [],
    turns: [],
  };

  // The gateway's writes of one request: its messages (with the turn), then the run's record.
  const commit = async (run?: StoredRun): Promise<{ bytes: number; ms: number }> => {
    const history = conversation.head.history;
    const count = unstored.messages.length;
    const first = history.length - count;
    const input: AppendMessagesInput = {
      tenant,
      conversationId,
      expected: version,
      messages: unstored.messages,
      digests: history.digestRange(first),
      next: { epoch: history.epoch, headDigest: history.headDigest, messageCount: history.length },
      turns: unstored.turns.map((turn) => ({ eventId: turn.eventId, record: turn })),
      ...(unstored.lastRunId === undefined ? {} : { lastRunId: unstored.lastRunId }),
    };
    const newBlobIds = meter.newBlobIds(input);
    const firstTurnSeq = meter.turnCount(tenant, conversationId);
    const started = performance.now();
    await store.appendMessages(input);
    if (run !== undefined) {
      await store.recordRun({ tenant, conversationId, expected: input.next, run });
    }
    const ms = performance.now() - started;
    version = input.next;
    unstored = { messages: [], turns: [] };
    return {
      bytes: meter.bytesAdded({
        input: { ...input, ...(run === undefined ? {} : { run }) },
        newBlobIds,
        firstSeq: first,
        firstTurnSeq,
      }),
      ms,
    };
  };

  let deltaBase: CheckpointDeltaBase | undefined;
  const writeHeadCheckpoint = async (): Promise<{
    bytes: number;
    ms: number;
    deltaBytes: number;
    deltaMs: number;
  }> => {
    const head = conversation.head;
    const state = createCheckpointState({
      conversationId,
      history: head.history,
      turns: head.turns,
      latestRequestContextId: head.history.latestRequestContext()?.id,
      promptSpecDigest: promptSpec.digest,
    });
    const started = performance.now();
    const result = await writeCheckpoint({ store: blobs, previous: checkpointRef, state });
    const ms = performance.now() - started;
    checkpointRef = result.ref;
    // The delta token a client of the delta form receives for this request.
    const d0 = performance.now();
    const delta = encodeCheckpointDelta({
      state,
      base: deltaBase ?? { messageCount: 0, turnCount: 0, headDigest: emptyHeadDigest(0) },
      secret: benchCheckpointSecret,
      audience: tenant,
    });
    const deltaMs = performance.now() - d0;
    deltaBase = {
      messageCount: state.messages.length,
      turnCount: state.turns.length,
      headDigest: state.headDigest,
    };
    return { bytes: result.bytesWritten, ms, deltaBytes: Buffer.byteLength(delta), deltaMs };
  };

  const rows: GrowthRow[] = [];
  let window: WindowSamples | undefined;
  let windowEnd = -1;
  const marks = [...options.marks].sort((a, b) => a - b);
  try {
    for (const event of session.events) {
      if (event.type === "restart") continue;
      options.onProgress?.(conversation.userTurns, lastMark + options.windowTurns);
      const turns = conversation.userTurns;
      if (window !== undefined && turns >= windowEnd && event.type === "user-turn") {
        rows.push(summarize(window));
        window = undefined;
      }
      if (window === undefined && event.type === "user-turn" && marks[0] === turns) {
        marks.shift();
        // Catch up: the store and the checkpoint chain hold the whole head before the window.
        await commit();
        await writeHeadCheckpoint();
        collectGarbage();
        window = emptyWindow(turns, conversation.head.history.length);
        windowEnd = turns + options.windowTurns;
      }
      // Warm the projection and serialisers up on the short history before the first mark.
      const measure = window !== undefined || turns < 5;
      const samples = window;
      // A young-generation GC before each measured request: a step must not pay for the garbage
      // the previous request left behind. Not a full one: a full GC also drops V8's inline-cache
      // stubs, and the step after it runs several times slower than a gateway's (0.6 against
      // 0.12 ms for prepareTurn at 10 turns), which a gateway, collecting every few hundred
      // requests, does not see. The full GC runs once per window, before its first request.
      if (samples !== undefined) collectYoungGarbage();
      const applied: AppliedEvent = conversation.apply(event, (plan) => {
        if (!measure) return;
        const t0 = performance.now();
        const request = toModelRequest({
          conversationId,
          model,
          promptSpec,
          messages: conversation.head.history.messages,
          ...(plan.next !== "call-model" || plan.allowedTools === undefined
            ? {}
            : { allowedTools: plan.allowedTools }),
        });
        const t1 = performance.now();
        samples?.project.push(t1 - t0);
        for (const provider of growthProviders) {
          const s0 = performance.now();
          const body = adapters[provider].serialize(request).body;
          const s1 = performance.now();
          const json = JSON.stringify(body);
          const s2 = performance.now();
          samples?.serialize[provider].push(s1 - s0);
          samples?.stringify[provider].push(s2 - s1);
          samples?.bodyBytes[provider].push(Buffer.byteLength(json));
        }
      });
      unstored.messages.push(...applied.added);
      unstored.turns.push(...applied.plan.newTurns);
      if (applied.plan.newTurns.length > 0) unstored.lastRunId = applied.plan.acceptedRunId;
      if (samples === undefined) continue;
      if (applied.modelCalled) {
        samples.prepare.push(applied.prepareMs);
        samples.append.push(applied.appendMs);
      }
      if (applied.added.length === 0) continue;
      samples.newContent.push(
        applied.added.reduce((sum, message) => sum + Buffer.byteLength(canonicalJson(message)), 0),
      );
      const checkpoint = await writeHeadCheckpoint();
      samples.checkpointBytes.push(checkpoint.bytes);
      samples.checkpointMs.push(checkpoint.ms);
      samples.deltaBytes.push(checkpoint.deltaBytes);
      samples.deltaMs.push(checkpoint.deltaMs);
      const stored = await commit({
        runId: applied.plan.runId,
        status: applied.plan.next === "await-tools" ? "awaiting-tools" : "completed",
      });
      samples.storeBytes.push(stored.bytes);
      samples.storeMs.push(stored.ms);
    }
    if (window !== undefined) rows.push(summarize(window));
    return rows;
  } finally {
    meter.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type ExposedGc = (options?: { type: "major" | "minor" }) => void;

function collectGarbage(): void {
  (globalThis as { gc?: ExposedGc }).gc?.();
}

function collectYoungGarbage(): void {
  (globalThis as { gc?: ExposedGc }).gc?.({ type: "minor" });
}

function emptyWindow(historyTurns: number, historyMessages: number): WindowSamples {
  return {
    historyTurns,
    historyMessages,
    prepare: [],
    append: [],
    project: [],
    serialize: perProvider(() => []),
    stringify: perProvider(() => []),
    bodyBytes: perProvider(() => []),
    newContent: [],
    checkpointBytes: [],
    checkpointMs: [],
    deltaBytes: [],
    deltaMs: [],
    storeBytes: [],
    storeMs: [],
  };
}

function summarize(window: WindowSamples): GrowthRow {
  const prepare = median(window.prepare);
  const append = median(window.append);
  const project = median(window.project);
  const serializeMs = perProvider(() => 0);
  const stringifyMs = perProvider(() => 0);
  const bodyBytes = perProvider(() => 0);
  const ratio = perProvider(() => 0);
  for (const provider of growthProviders) {
    serializeMs[provider] = median(window.serialize[provider]);
    stringifyMs[provider] = median(window.stringify[provider]);
    bodyBytes[provider] = median(window.bodyBytes[provider]);
    ratio[provider] = (prepare + append + project + serializeMs[provider]) / stringifyMs[provider];
  }
  return {
    historyTurns: window.historyTurns,
    historyMessages: window.historyMessages,
    calls: window.project.length,
    prepareMs: prepare,
    appendMs: append,
    projectMs: project,
    serializeMs,
    stringifyMs,
    bodyBytes,
    ratio,
    requests: window.storeBytes.length,
    newContentBytes: mean(window.newContent),
    checkpointBytes: mean(window.checkpointBytes),
    checkpointMs: median(window.checkpointMs),
    deltaTokenBytes: mean(window.deltaBytes),
    deltaTokenMs: median(window.deltaMs),
    storeBytes: mean(window.storeBytes),
    storeMs: median(window.storeMs),
  };
}
