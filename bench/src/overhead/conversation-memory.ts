import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchGateway, unlimitedContextWindow } from "../harness/gateway-harness.js";
import { sendSessionRequest } from "../harness/gateway-http.js";
import { FakeProviderProcess } from "./fake-provider-process.js";
import { seededConversation } from "./seeded-conversation.js";

export interface MemoryRow {
  readonly historyTurns: number;
  readonly conversations: number;
  /** Canonical messages of each conversation's history. */
  readonly messages: number;
  /** Size of the history as JSON (what a conversation holds at least). */
  readonly historyBytes: number;
  /** Heap growth of the gateway process per open conversation (after a full GC). */
  readonly heapBytesPerConversation: number;
  /** False when the process runs without `--expose-gc` (the figure is then noisier). */
  readonly gcExposed: boolean;
}

function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

/**
 * Part 4b: heap per open conversation. `conversations` conversations with `historyTurns` turns
 * each are opened in an in-process gateway (each resumed from a client checkpoint and given one
 * more turn, so the gateway holds its head, its request log and its checkpoint cache); the heap
 * growth after a full GC is divided among them. The fake provider runs as its own process.
 */
export async function measureConversationMemory({
  historyTurns,
  conversations,
  seed,
  toolResultChars,
  onProgress,
}: {
  historyTurns: number;
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
  });
  let messages = 0;
  let historyBytes = 0;
  try {
    // Warm the gateway up (code paths, caches) before the baseline with one conversation.
    await open(-1);
    const gcExposed = collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < conversations; i += 1) {
      onProgress?.(i, conversations);
      await open(i);
    }
    onProgress?.(conversations, conversations);
    collectGarbage();
    const after = process.memoryUsage().heapUsed;
    return {
      historyTurns,
      conversations,
      messages,
      historyBytes,
      heapBytesPerConversation: (after - before) / conversations,
      gcExposed,
    };
  } finally {
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
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
