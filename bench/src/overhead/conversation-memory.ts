import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";
import { launchGateway, unlimitedContextWindow } from "../harness/gateway-harness.js";
import { sendSessionRequest } from "../harness/gateway-http.js";
import { FakeProviderProcess } from "./fake-provider-process.js";
import { seededConversation } from "./seeded-conversation.js";

export interface MemoryRow {
  readonly historyTurns: number;
  /** Conversations of the measured batch (as many were open before it). */
  readonly conversations: number;
  /** Canonical messages of each conversation's history. */
  readonly messages: number;
  /** Size of the history as JSON (what a conversation holds at least). */
  readonly historyBytes: number;
  /**
   * Memory growth of the gateway process per open conversation, after a full GC: the V8 heap
   * without compiled code (the JIT's, not the conversation's), plus array buffers.
   */
  readonly heapBytesPerConversation: number;
  /** What the gateway's cache ledger accounts per open conversation (its estimate). */
  readonly cacheBytesPerConversation?: number;
  /** False when the process runs without `--expose-gc` (the figure is then noisier). */
  readonly gcExposed: boolean;
}

/**
 * How many conversations a measurement opens: at least `minimum`, and enough to hold about
 * 8 MB of history in all (capped at 80), so the figure is a conversation's, not the noise's.
 */
function conversationsFor({
  historyBytes,
  minimum,
}: {
  historyBytes: number;
  minimum: number;
}): number {
  return Math.max(minimum, Math.min(80, Math.ceil(8_000_000 / Math.max(1, historyBytes))));
}

/** Batches of conversations opened and kept open before the measured one. */
const keptBatches = 2;

/** The target: heap per open conversation ≤ 1.5 × its history's JSON size. */
export const memoryTargetRatio = 1.5;

/** V8 heap in use without compiled code, plus array buffers (what data holds). */
function dataBytes(): number {
  const code = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith("code_"))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  const usage = process.memoryUsage();
  return usage.heapUsed - code + usage.arrayBuffers;
}

function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

/**
 * Part 4b: memory per open conversation. Conversations with `historyTurns` turns each are
 * opened in an in-process gateway (each resumed from a client checkpoint and given one more
 * turn, so the gateway holds its head, its request log and its checkpoint cache), in three equal
 * batches after three warm-up conversations; the growth the third batch adds, after a full GC,
 * divided by its size, is the figure: what one more open conversation costs. Compiled code is
 * not counted (the JIT's growth is not a conversation's), array buffers are. Small histories
 * are measured over more conversations (`conversationsFor`). The fake provider runs as its own
 * process.
 */
export async function measureConversationMemory({
  historyTurns,
  conversations,
  seed,
  toolResultChars,
  onProgress,
}: {
  historyTurns: number;
  /** At least this many (more for a small history: `conversationsFor`). */
  conversations: number;
  seed: number;
  toolResultChars: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<MemoryRow> {
  const fake = await FakeProviderProcess.start();
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-memory-"));
  const gateway = await launchGateway({
    provider: "openai-responses",
    providerURL: fake.openaiBaseURL,
    dataDir,
    // Long histories on purpose: no automatic compaction in the way of the measurement.
    contextWindow: unlimitedContextWindow,
    // Every conversation stays open (three batches of 1 000-turn ones hold about 280 MB, more
    // than the default budget): an evicted head would make the figure not per open conversation.
    cacheBytes: 2 * 1024 ** 3,
  });
  let messages = 0;
  let historyBytes = 0;
  try {
    // Warm the gateway up (code paths, shapes, the caches' own tables) before the baseline.
    for (let warmUp = 1; warmUp <= 3; warmUp += 1) await open(-warmUp);
    const gcExposed = collectGarbage();
    let before = 0;
    let cacheBefore = 0;
    const count = conversationsFor({ historyBytes, minimum: conversations });
    // Batches are opened and kept open before the baseline: what the measured one adds is what
    // one more open conversation costs (tables that grew once, shapes, feedback left out). Two
    // of them, not one: heap snapshots show V8 still optimising the request path during a second
    // batch (some 280 new code objects and 350 deoptimisation tables in 80 conversations at 10
    // turns, ~9 kB per conversation outside the code space), which is the JIT's, not a
    // conversation's.
    const total = (keptBatches + 1) * count;
    for (let i = 0; i < total; i += 1) {
      onProgress?.(i, total);
      if (i === keptBatches * count) {
        collectGarbage();
        before = dataBytes();
        snapshot("before", count);
        cacheBefore = gateway.service.cacheStats().heldBytes;
      }
      await open(i);
    }
    onProgress?.(total, total);
    collectGarbage();
    const after = dataBytes();
    snapshot("after", count);
    const stats = gateway.service.cacheStats();
    if (stats.kinds.head.evictions > 0) {
      throw new Error(
        `the cache budget (${stats.maxBytes} bytes) evicted heads: the figure would not be per open conversation`,
      );
    }
    return {
      historyTurns,
      conversations: count,
      messages,
      historyBytes,
      heapBytesPerConversation: (after - before) / count,
      cacheBytesPerConversation: (stats.heldBytes - cacheBefore) / count,
      gcExposed,
    };
  } finally {
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // CURSOR_BENCH_HEAP_SNAPSHOTS=<folder>: heap snapshots at the baseline and after the measured
  // batch (same process, so node ids match), to attribute what one more conversation holds.
  function snapshot(label: string, count: number): void {
    const folder = process.env.CURSOR_BENCH_HEAP_SNAPSHOTS;
    if (folder === undefined || folder === "") return;
    writeHeapSnapshot(join(folder, `memory-${historyTurns}-${label}-${count}.heapsnapshot`));
  }

  async function open(index: number): Promise<void> {
    const seeded = seededConversation({
      conversationId: `memory-${historyTurns}-${index}`,
      historyTurns,
      followingTurns: 1,
      seed,
      toolResultChars,
    });
    messages = seeded.messages;
    historyBytes = seeded.historyBytes;
    const event = seeded.next.find((e) => e.type === "user-turn");
    if (event === undefined) throw new Error("the seeded session has no next user turn");
    await fake.enqueue(event.replies);
    await sendSessionRequest({
      baseURL: gateway.url,
      body: { ...event.body, checkpoint: seeded.checkpoint },
      expectedEnd: event.expectedEnd,
      // A user turn has no expectedRunId: nothing to tolerate.
      onDeviation: (message) => {
        throw new Error(message);
      },
    });
    await fake.reset();
  }
}
