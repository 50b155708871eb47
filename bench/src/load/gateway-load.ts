import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { getJson } from "../harness/gateway-http.js";
import { GatewayProcess } from "../harness/gateway-process.js";
import { readCallRecords } from "../harness/gateway-records.js";
import { FakeProviderProcess } from "../overhead/fake-provider-process.js";
import type { FakeCallRecord } from "../overhead/fake-provider-process.js";
import { processCpuMs } from "../overhead/process-cpu.js";
import { timedStream } from "../overhead/timed-stream.js";
import { quantile } from "../stats.js";
import {
  loadConversationId,
  loadFilePath,
  loadRunId,
  locateBody,
  toolResultsBody,
  userMessageBody,
} from "./load-requests.js";
import { answerProblem, directProblem, readToolCall } from "./load-streams.js";
import { callsPerTurn, verifyConversation } from "./verify-conversation.js";
import type {
  ConversationSummary,
  RunRecordEvidence,
  ConversationEvidence,
} from "./verify-conversation.js";

/** p50 / p95 / p99 of one series, in ms. */
interface Quantiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export interface LoadResult {
  readonly conversations: number;
  /** User turns per conversation, each one tool round (two provider calls). */
  readonly turns: number;
  /** Conversations streaming at once (one call in flight each). */
  readonly concurrency: number;
  /** How the gateway ran: the operator's command, its own process, SQLite in a fresh folder. */
  readonly gateway: "cursor-gateway serve";
  /** Measured gateway calls (`POST /v1/runs`, one provider call each). */
  readonly calls: number;
  /** Wall time of the measured gateway waves, and calls per second over it. */
  readonly gatewaySeconds: number;
  readonly callsPerSecond: number;
  /**
   * CPU time (user + system) of the gateway process per measured call, from /proc (NaN
   * without it): what a call costs the gateway whatever the machine's load.
   */
  readonly gatewayCpuMsPerCall: number;
  /** The same bodies straight to the fake provider, at the same concurrency. */
  readonly directSeconds: number;
  readonly directCallsPerSecond: number;
  /** Whole-call latency (request to the end of the stream). */
  readonly gatewayMs: Quantiles;
  readonly directMs: Quantiles;
  /** gateway − direct per call, paired on the same provider body. */
  readonly addedMs: Quantiles;
  /** Median and largest provider body the gateway sent. */
  readonly bodyBytes: { readonly p50: number; readonly max: number };
  /** Calls on either path that failed (status, end reason, missing tool call); must be 0. */
  readonly errors: number;
  /** The first few of them. */
  readonly errorSamples: readonly string[];
  /** Conversations checked afterwards (the measured ones and the warm-up's). */
  readonly verifiedConversations: number;
  /** Conversations with at least one problem (must be 0). */
  readonly failedConversations: number;
  /** Problems the check found (must be 0), and the first few. */
  readonly verificationProblems: number;
  readonly verificationSamples: readonly string[];
  /** What was checked, summed over the conversations. */
  readonly storedMessages: number;
  readonly usageRecords: number;
  readonly runRecords: number;
  /** Provider calls the fake provider received from the gateway (its own record). */
  readonly providerCalls: number;
}

/** At most this many errors and problems are kept as samples for the report. */
const maxSamples = 10;

function quantiles(values: readonly number[]): Quantiles {
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95), p99: quantile(values, 0.99) };
}

/** Runs `work` over `items`, `concurrency` at a time; the wall time in seconds. */
async function pooled<T>({
  items,
  concurrency,
  work,
}: {
  items: readonly T[];
  concurrency: number;
  work: (item: T) => Promise<void>;
}): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next]!;
        next += 1;
        await work(item);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

/** `conversationId#turn#step`: one provider call of one turn. */
const callKey = (conversationId: string, turn: number, step: number) =>
  `${conversationId}#${turn}#${step}`;

/**
 * The load part: `conversations` conversations × `turns` user turns, each a tool round (the
 * model asks for `read_file`, the client posts the file, the model answers: two provider calls),
 * `concurrency` conversations streaming at once through `cursor-gateway serve` (its own
 * process, SQLite) against the fake provider (its own process, `--agent`: its scripted agent
 * answers from the body alone). Turn by turn, every conversation's turn goes through the gateway
 * (a wave), then the provider bodies of that wave, taken from the fake provider's own record,
 * are replayed straight to it at the same concurrency (its direct wave): the two paths
 * interleave wave by wave, and added latency is paired call by call on the same body. A
 * warm-up wave of `concurrency` extra conversations (one turn) goes first and is not counted.
 * Afterwards every conversation is read back and verified (`verifyConversation`); the run
 * records come from the store's file once the gateway has stopped.
 */
export async function measureLoad({
  conversations,
  turns,
  concurrency,
  toolResultChars,
  onProgress,
}: {
  conversations: number;
  turns: number;
  concurrency: number;
  toolResultChars: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<LoadResult> {
  const fake = await FakeProviderProcess.start({ args: ["--agent"] });
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-load-"));
  let gateway: GatewayProcess | undefined;
  const errorSamples: string[] = [];
  let errors = 0;
  const fail = (message: string) => {
    errors += 1;
    if (errorSamples.length < maxSamples) errorSamples.push(message);
  };
  try {
    gateway = await GatewayProcess.start({
      provider: "openai-responses",
      providerURL: fake.openaiBaseURL,
      dataDir,
    });
    const gatewayURL = gateway.url;
    const gatewayPid = gateway.pid;
    const measured = Array.from({ length: conversations }, (_, index) => loadConversationId(index));
    const warmUp = Array.from({ length: concurrency }, (_, index) =>
      loadConversationId(conversations + index),
    );
    const gatewayMs = new Map<string, number>();
    const directMs = new Map<string, number>();
    const bodyBytes: number[] = [];
    const providerCalls = new Map<string, number>();
    let gatewaySeconds = 0;
    let gatewayCpuMs = 0;
    let directSeconds = 0;

    /** One turn of one conversation through the gateway: its two calls, one after the other. */
    const gatewayTurn = async ({
      conversationId,
      turn,
      timings,
    }: {
      conversationId: string;
      turn: number;
      timings: Map<string, number> | undefined;
    }): Promise<void> => {
      const where = `${conversationId} turn ${turn}`;
      const path = loadFilePath({ conversationId, turn });
      const asked = await timedStream({
        url: `${gatewayURL}/v1/runs`,
        body: JSON.stringify(userMessageBody({ conversationId, turn })),
        marker: "event: tool.call",
      });
      const call = readToolCall({ status: asked.status, text: asked.text, path });
      if ("problem" in call) {
        fail(`${where}, user message: ${call.problem}`);
        return;
      }
      timings?.set(callKey(conversationId, turn, 0), asked.endMs);
      const answered = await timedStream({
        url: `${gatewayURL}/v1/runs`,
        body: JSON.stringify(
          toolResultsBody({ conversationId, turn, callId: call.callId, chars: toolResultChars }),
        ),
        marker: "event: text.delta",
      });
      const problem = answerProblem(answered);
      if (problem !== null) {
        fail(`${where}, tool results: ${problem}`);
        return;
      }
      timings?.set(callKey(conversationId, turn, 1), answered.endMs);
    };

    /** The wave's provider bodies from the fake provider's record, by conversation, in order. */
    const waveBodies = (
      records: readonly FakeCallRecord[],
      turn: number,
    ): Map<string, string[]> => {
      const byConversation = new Map<string, string[]>();
      for (const record of [...records].sort((a, b) => a.sequence - b.sequence)) {
        const json = JSON.stringify(record.body);
        const located = locateBody(json);
        if (record.status !== 200) {
          fail(`the fake provider answered a gateway call ${record.status} (${record.path})`);
        }
        if (located === undefined || located.turn !== turn) {
          fail(`a provider body of turn ${turn} names no load turn of it (${json.slice(0, 200)})`);
          continue;
        }
        providerCalls.set(
          located.conversationId,
          (providerCalls.get(located.conversationId) ?? 0) + 1,
        );
        const bodies = byConversation.get(located.conversationId) ?? [];
        bodies.push(json);
        byConversation.set(located.conversationId, bodies);
      }
      return byConversation;
    };

    /** The wave's bodies straight to the fake provider: per conversation in order, as many at once. */
    const directWave = async ({
      bodies,
      turn,
      timings,
    }: {
      bodies: Map<string, string[]>;
      turn: number;
      timings: Map<string, number> | undefined;
    }): Promise<number> =>
      pooled({
        items: [...bodies.entries()],
        concurrency,
        work: async ([conversationId, list]) => {
          for (const [step, body] of list.entries()) {
            const timing = await timedStream({
              url: `${fake.url}/v1/responses`,
              body,
              marker: "response.output_text.delta",
              headers: { authorization: "Bearer bench-key" },
            });
            const problem = directProblem(timing);
            if (problem !== null) {
              fail(`${conversationId} turn ${turn} call ${step + 1} direct: ${problem}`);
              continue;
            }
            timings?.set(callKey(conversationId, turn, step), timing.endMs);
          }
        },
      });

    const totalSteps = turns + 2;
    onProgress?.(0, totalSteps);
    // Warm-up (JIT, pools, the store's first pages): extra conversations, not counted.
    await fake.reset();
    await pooled({
      items: warmUp,
      concurrency,
      work: (conversationId) => gatewayTurn({ conversationId, turn: 1, timings: undefined }),
    });
    const warmBodies = waveBodies(await fake.records(), 1);
    await fake.reset();
    await directWave({ bodies: warmBodies, turn: 1, timings: undefined });
    await fake.reset();
    onProgress?.(1, totalSteps);
    for (let turn = 1; turn <= turns; turn += 1) {
      const cpuBefore = processCpuMs(gatewayPid);
      gatewaySeconds += await pooled({
        items: measured,
        concurrency,
        work: (conversationId) => gatewayTurn({ conversationId, turn, timings: gatewayMs }),
      });
      gatewayCpuMs += processCpuMs(gatewayPid) - cpuBefore;
      const records = await fake.records();
      await fake.reset();
      const bodies = waveBodies(records, turn);
      for (const list of bodies.values()) {
        for (const body of list) bodyBytes.push(Buffer.byteLength(body));
      }
      directSeconds += await directWave({ bodies, turn, timings: directMs });
      await fake.reset();
      onProgress?.(turn + 1, totalSteps);
    }

    // Afterwards: every conversation read back through the gateway, then its run records from
    // the store (the gateway stopped first, so nothing is written meanwhile).
    const everyone = [
      ...warmUp.map((conversationId) => ({ conversationId, turns: 1 })),
      ...measured.map((conversationId) => ({ conversationId, turns })),
    ];
    const readBack = new Map<string, Omit<ConversationEvidence, "runs">>();
    const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
    await pooled({
      items: everyone,
      concurrency: 8,
      work: async ({ conversationId }) => {
        const path = `/v1/conversations/${encodeURIComponent(conversationId)}`;
        const summary = await getJson(gatewayURL, path).then(
          (answer) => answer as ConversationSummary,
          reason,
        );
        const history = await getJson(gatewayURL, `${path}/history`).then(
          (answer) => (Array.isArray(answer) ? answer : `not a list: ${JSON.stringify(answer)}`),
          reason,
        );
        const calls = await readCallRecords(gatewayURL, conversationId).catch(reason);
        readBack.set(conversationId, {
          conversationId,
          summary,
          history,
          calls,
          providerCalls: providerCalls.get(conversationId) ?? 0,
        });
      },
    });
    await gateway.close();
    gateway = undefined;
    const runs = readRunRecords(join(dataDir, "gateway.sqlite"));
    const problems: string[] = [];
    let storedMessages = 0;
    let usageRecords = 0;
    let runRecords = 0;
    let failedConversations = 0;
    for (const { conversationId, turns: sent } of everyone) {
      const evidence: ConversationEvidence = {
        ...readBack.get(conversationId)!,
        runs: runs.get(conversationId) ?? [],
      };
      if (Array.isArray(evidence.history)) storedMessages += evidence.history.length;
      if (Array.isArray(evidence.calls)) usageRecords += evidence.calls.length;
      runRecords += evidence.runs.length;
      const found = verifyConversation({
        evidence,
        expected: {
          turns: sent,
          runIds: Array.from({ length: sent }, (_, index) =>
            loadRunId({ conversationId, turn: index + 1 }),
          ),
        },
      });
      if (found.length > 0) failedConversations += 1;
      problems.push(...found);
    }
    // Conversations the store holds that the load never created: stored twice under a new id?
    const strangers = [...runs.keys()].filter((id) => !readBack.has(id));
    if (strangers.length > 0) {
      problems.push(`run records of conversations the load never created: ${strangers.join(", ")}`);
    }
    onProgress?.(totalSteps, totalSteps);

    const added = [...gatewayMs.entries()].flatMap(([key, ms]) => {
      const direct = directMs.get(key);
      return direct === undefined ? [] : [ms - direct];
    });
    const measuredCalls = conversations * turns * callsPerTurn;
    return {
      conversations,
      turns,
      concurrency,
      gateway: "cursor-gateway serve",
      calls: measuredCalls,
      gatewaySeconds,
      callsPerSecond: gatewayMs.size / gatewaySeconds,
      gatewayCpuMsPerCall: gatewayCpuMs / gatewayMs.size,
      directSeconds,
      directCallsPerSecond: directMs.size / directSeconds,
      gatewayMs: quantiles([...gatewayMs.values()]),
      directMs: quantiles([...directMs.values()]),
      addedMs: quantiles(added),
      bodyBytes: { p50: quantile(bodyBytes, 0.5), max: Math.max(0, ...bodyBytes) },
      errors,
      errorSamples,
      verifiedConversations: everyone.length,
      failedConversations,
      verificationProblems: problems.length,
      verificationSamples: problems.slice(0, maxSamples),
      storedMessages,
      usageRecords,
      runRecords,
      providerCalls: [...providerCalls.values()].reduce((sum, calls) => sum + calls, 0),
    };
  } finally {
    await gateway?.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The store's run records by conversation (read-only, after the gateway stopped). */
function readRunRecords(path: string): Map<string, RunRecordEvidence[]> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare("SELECT conversation_id AS conversationId, run_id AS runId, status FROM runs")
      .all() as { conversationId: string; runId: string; status: string }[];
    const byConversation = new Map<string, RunRecordEvidence[]>();
    for (const row of rows) {
      const runs = byConversation.get(row.conversationId) ?? [];
      runs.push({ runId: row.runId, status: row.status });
      byConversation.set(row.conversationId, runs);
    }
    return byConversation;
  } finally {
    db.close();
  }
}
