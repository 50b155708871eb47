import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unlimitedContextWindow } from "../harness/gateway-harness.js";
import { GatewayProcess } from "../harness/gateway-process.js";
import { getJson, sendSessionRequest } from "../harness/gateway-http.js";
import { quantile } from "../stats.js";
import { FakeProviderProcess } from "./fake-provider-process.js";
import { HopProcess } from "./hop-process.js";
import { processCpuMs } from "./process-cpu.js";
import { seededConversation } from "./seeded-conversation.js";
import { timedStream } from "./timed-stream.js";
import type { StreamTiming } from "./timed-stream.js";
import type { RunRequestBody } from "@cursor/testkit";

/** p50 / p95 / p99 of one series, in ms. */
interface Quantiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

/** One path's times (to the first text delta and to the end) and what it adds over direct. */
interface PathFigures {
  readonly firstText: Quantiles;
  readonly end: Quantiles;
  /** Quantiles of (path − direct) per sample, paired on the same body and round. */
  readonly addedFirstText: Quantiles;
  readonly addedEnd: Quantiles;
}

export interface OverheadRow {
  readonly historyTurns: number;
  /** Conversations streaming at once. */
  readonly concurrency: number;
  /** Calls measured on each path. */
  readonly samples: number;
  readonly bodyBytes: number;
  /** Median time of one `JSON.stringify` of the provider body (the 1 000-turn target's term). */
  readonly stringifyMs: number;
  readonly direct: { readonly firstText: Quantiles; readonly end: Quantiles };
  readonly proxy: PathFigures;
  /**
   * Fastify + the official SDK relaying the same body (no history, store or checkpoint work):
   * what the gateway's framework and transport cost on their own. Absent in older reports.
   */
  readonly relay?: PathFigures;
  readonly gateway: PathFigures;
  /** gateway-added ÷ pass-through-added (p50 and p99), to the first text delta and to the end. */
  readonly ratio: {
    readonly firstTextP50: number;
    readonly endP50: number;
    readonly firstTextP99: number;
    readonly endP99: number;
  };
  /** Median bytes of the `checkpoint.delta` event's data the client received per call. */
  readonly checkpointEventBytes: number;
  /** The full `checkpoint` form of the same head (`GET …/checkpoint`), once at the end. */
  readonly fullCheckpointBytes: number;
  /**
   * CPU time per measured call of the gateway process and of the pass-through proxy process
   * (`/proc`, user + system; NaN elsewhere): what each hop costs, whatever the machine's load.
   */
  readonly cpuPerCallMs?: {
    readonly gateway: number;
    readonly proxy: number;
    readonly relay?: number;
  };
  /** Calls on any path that failed (non-200 or no completed end); must be 0. */
  readonly errors: number;
  /** Kept for older reports: the gateway's end-to-end figures. */
  readonly gatewayP50Ms: number;
  readonly gatewayP95Ms: number;
  readonly directP50Ms: number;
  readonly directP95Ms: number;
  readonly addedP50Ms: number;
  readonly addedP95Ms: number;
  readonly deviations: readonly string[];
}

interface ProviderRequestsAnswer {
  readonly requests: readonly { readonly body: unknown }[];
}

type Path = "direct" | "proxy" | "relay" | "gateway";

/** gateway-added ÷ proxy-added; NaN when the proxy's added time is not positive. */
export function addedRatio(gateway: number, proxy: number): number {
  return proxy > 0 ? gateway / proxy : Number.NaN;
}

function quantiles(values: readonly number[]): Quantiles {
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95), p99: quantile(values, 0.99) };
}

/**
 * Part 4a, measured like the public gateway benchmarks: `concurrency` conversations with
 * `historyTurns` turns of history are resumed in a gateway process (`cursor-gateway serve`, like
 * the pass-through proxy its own process) from client checkpoints
 * (setup, not measured). Then, round after round, each conversation gets a new user message
 * through the gateway (validation, turn preparation, projection, the provider package, store
 * commit, checkpoint, SSE), and the body the gateway sent (as the fake provider recorded it) is
 * posted, byte for byte, straight to the fake provider, through a bare pass-through proxy (its
 * own process, no parsing) and through the SDK relay: the
 * paths interleaved round by round with a rotating order, all conversations of a path at
 * once. Every path is warmed up first, on conversations of its own. The fake provider (its own process) answers each with the same short text stream.
 */
export async function measureGatewayOverhead({
  historyTurns,
  concurrency = 1,
  samples,
  warmupCalls = 0,
  seed,
  toolResultChars,
  onProgress,
}: {
  historyTurns: number;
  concurrency?: number;
  samples: number;
  /**
   * Calls on every path before the measured ones, on conversations of their own (their histories
   * grow; the measured ones stay near `historyTurns`): a gateway serves thousands of calls, so
   * what it costs is what its code costs once the JIT has compiled it, as for the proxy.
   */
  warmupCalls?: number;
  seed: number;
  toolResultChars: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<OverheadRow> {
  const fake = await FakeProviderProcess.start();
  const proxy = await HopProcess.start({ kind: "pass-through-proxy", upstream: fake.url });
  const relay = await HopProcess.start({ kind: "sdk-relay", upstream: fake.url });
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-overhead-"));
  const gateway = await GatewayProcess.start({
    provider: "openai-responses",
    providerURL: fake.openaiBaseURL,
    dataDir,
    // Long histories on purpose: no automatic compaction in the way of the measurement.
    contextWindow: unlimitedContextWindow,
  });
  const rounds = Math.max(3, Math.ceil(samples / concurrency));
  // Each measured conversation gets at most `turnsPerConversation` measured turns, so the history
  // a call sees stays within a few short turns of `historyTurns` however many samples are taken.
  const groups = Math.max(1, Math.ceil(rounds / turnsPerConversation));
  const warmupRounds = Math.ceil(warmupCalls / concurrency);
  const warmupGroups = Math.ceil(warmupRounds / turnsPerConversation);
  const times: Record<Path, StreamTiming[]> = { direct: [], proxy: [], relay: [], gateway: [] };
  const bodyBytes: number[] = [];
  const stringifyMs: number[] = [];
  let errors = 0;
  const deviations: string[] = [];
  const checkpointEventBytes: number[] = [];
  let fullCheckpointBytes = Number.NaN;
  const cpuMs = { gateway: 0, proxy: 0, relay: 0 };
  // With `CURSOR_BENCH_GATEWAY_CPU_PROF`, the measured gateway calls' time windows (CLOCK_MONOTONIC
  // µs, the clock of V8's profile timestamps) go beside the profile, so an analysis can keep only
  // the samples of the measured calls and leave out setup and the bench's reads between rounds.
  const profileDir = process.env.CURSOR_BENCH_GATEWAY_CPU_PROF;
  const gatewayWindows: [number, number][] = [];
  // A path's calls, with the CPU time its hop's process spent on them (measured rounds only).
  const measuredPath = async (path: Path, bodies: readonly string[], measured: boolean) => {
    const pid =
      path === "gateway"
        ? gateway.pid
        : path === "proxy"
          ? proxy.pid
          : path === "relay"
            ? relay.pid
            : undefined;
    const before = processCpuMs(pid);
    const startedUs = Number(process.hrtime.bigint() / 1000n);
    const timings = await runPath(path, bodies);
    if (measured && path !== "direct") cpuMs[path] += processCpuMs(pid) - before;
    if (measured && path === "gateway") {
      gatewayWindows.push([startedUs, Number(process.hrtime.bigint() / 1000n)]);
    }
    return timings;
  };

  const runPath = (path: Path, bodies: readonly string[]): Promise<StreamTiming[]> =>
    Promise.all(
      bodies.map(async (body) => {
        const timing =
          path === "gateway"
            ? await timedStream({
                url: `${gateway.url}/v1/runs`,
                body,
                marker: "event: text.delta",
              })
            : await timedStream({
                url: `${path === "direct" ? fake.url : path === "proxy" ? proxy.url : relay.url}/v1/responses`,
                body,
                marker: "response.output_text.delta",
                headers: { authorization: "Bearer bench-key" },
              });
        const completed =
          path === "gateway"
            ? timing.text.includes('"reason":"completed"')
            : timing.text.includes("response.completed");
        if (timing.status !== 200 || !completed) {
          errors += 1;
          deviations.push(`${path}: ${timing.status} ${timing.text.slice(-300)}`);
        }
        return timing;
      }),
    );

  try {
    // Setup: each conversation resumed from its checkpoint with the session's next user turn:
    // `groups` sets of `concurrency` measured conversations, and `warmupGroups` for the warm-up.
    const conversations: { conversationId: string; template: RunRequestBody }[] = [];
    const cacheKeys = new Map<string, string>();
    for (let index = 0; index < concurrency * (groups + warmupGroups); index += 1) {
      const conversationId =
        index < concurrency * groups
          ? `overhead-${historyTurns}-${index}`
          : `overhead-${historyTurns}-warm-${index}`;
      const seeded = seededConversation({
        conversationId,
        historyTurns,
        followingTurns: 2,
        seed,
        toolResultChars,
      });
      const template = seeded.next.find((event) => event.type === "user-turn");
      if (template === undefined) throw new Error("the seeded session has no next user turn");
      await fake.enqueue(template.replies);
      await sendSessionRequest({
        baseURL: gateway.url,
        body: { ...template.body, checkpoint: seeded.checkpoint },
        expectedEnd: template.expectedEnd,
        onDeviation: (message) => {
          throw new Error(message);
        },
      });
      conversations.push({ conversationId, template: template.body });
      // Its provider calls' cache key (one per conversation), to find its bodies in the fake
      // provider's record (setup: the only read of the gateway's request log).
      const answer = (await getJson(
        gateway.url,
        `/v1/conversations/${conversationId}/provider-requests?limit=1`,
      )) as ProviderRequestsAnswer;
      const key = (answer.requests.at(-1)?.body as { prompt_cache_key?: unknown } | undefined)
        ?.prompt_cache_key;
      if (typeof key !== "string") throw new Error(`${conversationId} sent no prompt_cache_key`);
      cacheKeys.set(conversationId, key);
    }
    await fake.reset();
    // Warm-up rounds on every path (JIT, connection pools), then the measured rounds.
    const setOf = (index: number) =>
      conversations.slice(index * concurrency, (index + 1) * concurrency);
    for (let round = -warmupRounds; round < rounds; round += 1) {
      onProgress?.(Math.max(0, round), rounds);
      const group =
        round < 0 ? setOf(groups + ((round + warmupRounds) % warmupGroups)) : setOf(round % groups);
      const turns = group.map((conversation) => userTurn(conversation, round + warmupRounds));
      // The gateway produces the round's provider bodies, so it goes first; the other two paths
      // alternate. Each round, every path streams all conversations at once.
      const gatewayRun = await measuredPath("gateway", turns, round >= 0);
      // The bodies the gateway sent, as the fake provider received them (its own record, reset
      // every round): the gateway process does no work for the benchmark between its calls.
      const received = new Map<string, unknown>();
      for (const body of await fake.requestBodies()) {
        received.set(String((body as { prompt_cache_key?: unknown }).prompt_cache_key), body);
      }
      const providerBodies = group.map(({ conversationId }) => {
        const body = received.get(cacheKeys.get(conversationId) ?? "");
        if (body === undefined) {
          throw new Error(`the fake provider received no call of ${conversationId} this round`);
        }
        const t0 = performance.now();
        const json = JSON.stringify(body);
        if (round >= 0) {
          stringifyMs.push(performance.now() - t0);
          bodyBytes.push(Buffer.byteLength(json));
        }
        return json;
      });
      // The replaying paths in a rotating order, so none is always first after the gateway.
      const replaying: Path[] = ["direct", "proxy", "relay"];
      const order = replaying.map((_, index) => replaying[(index + round + 3) % 3]!);
      const runs: Partial<Record<Path, StreamTiming[]>> = {};
      for (const path of order) runs[path] = await measuredPath(path, providerBodies, round >= 0);
      if (round >= 0) {
        for (const timing of gatewayRun) checkpointEventBytes.push(deltaEventBytes(timing.text));
        times.gateway.push(...gatewayRun);
        for (const path of order) times[path].push(...runs[path]!);
      }
      await fake.reset();
    }
    onProgress?.(rounds, rounds);
    const full = (await getJson(
      gateway.url,
      `/v1/conversations/${conversations[0]!.conversationId}/checkpoint`,
    )) as unknown;
    fullCheckpointBytes = Buffer.byteLength(JSON.stringify(full));
    if (profileDir !== undefined && profileDir !== "") {
      writeFileSync(
        join(profileDir, `gateway-windows-${historyTurns}x${concurrency}-${gateway.pid}.json`),
        JSON.stringify(gatewayWindows),
      );
    }
  } finally {
    await gateway.close();
    await proxy.close();
    await relay.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const series = (path: Path, pick: (timing: StreamTiming) => number) => times[path].map(pick);
  const added = (path: Path, pick: (timing: StreamTiming) => number) =>
    times[path].map((timing, index) => pick(timing) - pick(times.direct[index]!));
  const first = (timing: StreamTiming) => timing.firstTextMs;
  const end = (timing: StreamTiming) => timing.endMs;
  const figures = (path: Path): PathFigures => ({
    firstText: quantiles(series(path, first)),
    end: quantiles(series(path, end)),
    addedFirstText: quantiles(added(path, first)),
    addedEnd: quantiles(added(path, end)),
  });
  const proxyFigures = figures("proxy");
  const relayFigures = figures("relay");
  const gatewayFigures = figures("gateway");
  return {
    historyTurns,
    concurrency,
    samples: times.gateway.length,
    cpuPerCallMs: {
      gateway: cpuMs.gateway / times.gateway.length,
      proxy: cpuMs.proxy / times.proxy.length,
      relay: cpuMs.relay / times.relay.length,
    },
    bodyBytes: quantile(bodyBytes, 0.5),
    stringifyMs: quantile(stringifyMs, 0.5),
    direct: {
      firstText: quantiles(series("direct", first)),
      end: quantiles(series("direct", end)),
    },
    proxy: proxyFigures,
    relay: relayFigures,
    gateway: gatewayFigures,
    // A proxy that added nothing measurable (noise made the paired difference ≤ 0) has no
    // ratio: NaN, shown as "–", rather than a meaningless negative one.
    ratio: {
      firstTextP50: addedRatio(gatewayFigures.addedFirstText.p50, proxyFigures.addedFirstText.p50),
      endP50: addedRatio(gatewayFigures.addedEnd.p50, proxyFigures.addedEnd.p50),
      firstTextP99: addedRatio(gatewayFigures.addedFirstText.p99, proxyFigures.addedFirstText.p99),
      endP99: addedRatio(gatewayFigures.addedEnd.p99, proxyFigures.addedEnd.p99),
    },
    checkpointEventBytes: quantile(checkpointEventBytes, 0.5),
    fullCheckpointBytes,
    errors,
    gatewayP50Ms: gatewayFigures.end.p50,
    gatewayP95Ms: gatewayFigures.end.p95,
    directP50Ms: quantile(series("direct", end), 0.5),
    directP95Ms: quantile(series("direct", end), 0.95),
    addedP50Ms: gatewayFigures.addedEnd.p50,
    addedP95Ms: gatewayFigures.addedEnd.p95,
    deviations,
  };
}

/** Measured turns one conversation takes at most (each adds a few hundred bytes of history). */
const turnsPerConversation = 10;

/** A new user message on `conversation`'s template: same context, so nothing else changes. */
function userTurn(
  conversation: { conversationId: string; template: RunRequestBody },
  round: number,
): string {
  const body = conversation.template;
  if (body.action.type !== "user-message") throw new Error("the template is not a user turn");
  return JSON.stringify({
    ...body,
    // A client of the delta form: each run's checkpoint event carries what the run added.
    checkpointForm: "delta",
    runId: `${conversation.conversationId}-bench-${round + 1}`,
    action: {
      ...body.action,
      message: {
        ...body.action.message,
        id: `${conversation.conversationId}-bench-message-${round + 1}`,
        text: `Measured turn ${round + 1}: go on with the next step.`,
      },
    },
  });
}

/** Bytes of the `checkpoint.delta` event's data line in a gateway stream (0 when absent). */
function deltaEventBytes(stream: string): number {
  const start = stream.indexOf("event: checkpoint.delta\n");
  if (start === -1) return 0;
  const data = stream.indexOf("data: ", start);
  const end = stream.indexOf("\n", data);
  return Buffer.byteLength(stream.slice(data + "data: ".length, end));
}
