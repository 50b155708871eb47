import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchGateway, unlimitedContextWindow } from "../harness/gateway-harness.js";
import { sendSessionRequest } from "../harness/gateway-http.js";
import { FakeProviderProcess } from "../overhead/fake-provider-process.js";
import { seededConversation } from "../overhead/seeded-conversation.js";

/** One function's self time in a CPU profile. */
interface ProfileEntry {
  readonly functionName: string;
  /** `file:line` (the package's path after `node_modules` or `packages/`). */
  readonly location: string;
  readonly selfMs: number;
  /** Share of the profile's sampled time (idle excluded). */
  readonly share: number;
}

export interface ProfileRow {
  readonly historyTurns: number;
  /** Requests profiled (each with one model call). */
  readonly requests: number;
  /** Sampled time, idle excluded. */
  readonly busyMs: number;
  readonly top: readonly ProfileEntry[];
}

interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function shortLocation(url: string, line: number): string {
  if (url === "") return "(native)";
  const path = url.replace(/^file:\/\//, "");
  const inPackages = /\/packages\/([^/]+)\/(?:dist|src)\/(.*)$/.exec(path);
  if (inPackages) return `@cursor/${inPackages[1]}/${inPackages[2]}:${line + 1}`;
  const inModules = /.*\/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?(.*)$/.exec(path);
  if (inModules) return `${inModules[1]}:${line + 1}`;
  return `${path.split("/").slice(-2).join("/")}:${line + 1}`;
}

/** Self time per function (idle, program and garbage-collector nodes kept apart by name). */
function topSelfTime(profile: CpuProfile, limit: number): { busyMs: number; top: ProfileEntry[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // The profiler's own work (Profiler.stop runs under node:inspector's `post`) is not measured.
  const excluded = new Set<number>();
  const exclude = (node: ProfileNode): void => {
    excluded.add(node.id);
    for (const child of node.children ?? []) {
      const next = byId.get(child);
      if (next !== undefined) exclude(next);
    }
  };
  for (const node of profile.nodes) if (node.callFrame.url === "node:inspector") exclude(node);
  const self = new Map<string, { functionName: string; location: string; micros: number }>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const node = byId.get(profile.samples[i]!);
    const delta = profile.timeDeltas[i] ?? 0;
    if (node === undefined || excluded.has(node.id)) continue;
    const name = node.callFrame.functionName || "(anonymous)";
    if (name === "(idle)") continue;
    busy += delta;
    const location = shortLocation(node.callFrame.url, node.callFrame.lineNumber);
    const key = `${name}\u0000${location}`;
    const entry = self.get(key) ?? { functionName: name, location, micros: 0 };
    entry.micros += delta;
    self.set(key, entry);
  }
  const top = [...self.values()]
    .sort((a, b) => b.micros - a.micros || a.location.localeCompare(b.location))
    .slice(0, limit)
    .map((entry) => ({
      functionName: entry.functionName,
      location: entry.location,
      selfMs: entry.micros / 1000,
      share: busy === 0 ? 0 : entry.micros / busy,
    }));
  return { busyMs: busy / 1000, top };
}

/**
 * The appendix's CPU profile: a conversation with `historyTurns` turns of history is resumed in
 * an in-process gateway (not profiled), then `requests` requests with one model call each are
 * sent while `node:inspector`'s sampling profiler runs. The fake provider runs in its own process,
 * so the profile holds the gateway's work and the bench client's (reading the SSE stream).
 */
export async function profileGateway({
  historyTurns,
  requests,
  seed,
  toolResultChars,
  limit = 15,
  onProgress,
}: {
  historyTurns: number;
  requests: number;
  seed: number;
  toolResultChars: number;
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<ProfileRow> {
  const fake = await FakeProviderProcess.start();
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-profile-"));
  const gateway = await launchGateway({
    provider: "openai-responses",
    providerURL: fake.openaiBaseURL,
    dataDir,
    contextWindow: unlimitedContextWindow,
  });
  const seeded = seededConversation({
    conversationId: `profile-${historyTurns}`,
    historyTurns,
    followingTurns: Math.ceil(requests / 1.5) + 4,
    seed,
    toolResultChars,
  });
  const session = new Session();
  session.connect();
  try {
    let first = true;
    let profiled = 0;
    let profiling = false;
    for (const event of seeded.next) {
      if (profiled >= requests) break;
      onProgress?.(profiled, requests);
      // A client of the delta form, as in the overhead part.
      const body = {
        ...event.body,
        checkpointForm: "delta" as const,
        ...(first ? { checkpoint: seeded.checkpoint } : {}),
      };
      const measured = !first && event.replies.length === 1;
      if (measured && !profiling) {
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 200 });
        await session.post("Profiler.start");
        profiling = true;
      }
      await fake.enqueue(event.replies);
      await sendSessionRequest({
        baseURL: gateway.url,
        body,
        expectedEnd: event.expectedEnd,
        onDeviation: () => undefined,
      });
      first = false;
      if (measured) profiled += 1;
    }
    onProgress?.(requests, requests);
    const { profile } = (await session.post("Profiler.stop")) as { profile: CpuProfile };
    // The raw profile, for Chrome DevTools or a closer look (`CURSOR_BENCH_PROFILE_DIR`).
    const keep = process.env.CURSOR_BENCH_PROFILE_DIR;
    if (keep !== undefined && keep !== "") {
      writeFileSync(
        join(keep, `gateway-${historyTurns}-turns.cpuprofile`),
        JSON.stringify(profile),
      );
    }
    const { busyMs, top } = topSelfTime(profile, limit);
    return { historyTurns, requests: profiled, busyMs, top };
  } finally {
    session.disconnect();
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
