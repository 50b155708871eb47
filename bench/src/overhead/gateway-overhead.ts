import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchGateway, unlimitedContextWindow } from "../harness/gateway-harness.js";
import { getJson, sendSessionRequest } from "../harness/gateway-http.js";
import { quantile } from "../stats.js";
import { FakeProviderProcess } from "./fake-provider-process.js";
import { seededConversation } from "./seeded-conversation.js";

export interface OverheadRow {
  readonly historyTurns: number;
  /** Provider calls measured (each once through the gateway, once directly). */
  readonly samples: number;
  readonly bodyBytes: number;
  readonly gatewayP50Ms: number;
  readonly gatewayP95Ms: number;
  readonly directP50Ms: number;
  readonly directP95Ms: number;
  /** Quantiles of (gateway − direct) per call. */
  readonly addedP50Ms: number;
  readonly addedP95Ms: number;
  /** Requests the gateway refused that the session expected to pass (not measured). */
  readonly deviations: readonly string[];
}

interface ProviderRequestsAnswer {
  readonly requests: readonly { readonly body: unknown }[];
}

/** Streams `body` to the fake provider's Responses endpoint and reads the stream to its end. */
async function callDirectly(url: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench-key" },
    body: JSON.stringify(body),
  });
  await response.text();
  if (!response.ok) throw new Error(`the fake provider answered ${response.status}`);
}

/**
 * Part 4a: the latency the gateway adds per turn. A conversation with `historyTurns` turns of
 * history is resumed from a client checkpoint; then each following request with a model call is
 * sent through the gateway (HTTP, validation, projection, store commits, checkpoint, SSE) and
 * the provider body it produced is sent once more straight to the fake provider with the same
 * scripted reply. The fake provider runs as its own process, so its work is not counted twice.
 */
export async function measureGatewayOverhead({
  historyTurns,
  samples,
  seed,
  toolResultChars,
  onProgress,
}: {
  historyTurns: number;
  samples: number;
  seed: number;
  toolResultChars: number;
  onProgress?: (done: number, total: number) => void;
}): Promise<OverheadRow> {
  const fake = await FakeProviderProcess.start();
  const dataDir = mkdtempSync(join(tmpdir(), "cursor-bench-overhead-"));
  const gateway = await launchGateway({
    provider: "openai-responses",
    providerURL: fake.openaiBaseURL,
    dataDir,
    // Long histories on purpose: no automatic compaction in the way of the measurement.
    contextWindow: unlimitedContextWindow,
  });
  const conversationId = `overhead-${historyTurns}`;
  // Enough following turns for the samples plus one warm-up request.
  const seeded = seededConversation({
    conversationId,
    historyTurns,
    followingTurns: Math.ceil(samples / 1.5) + 4,
    seed,
    toolResultChars,
  });
  const gatewayMs: number[] = [];
  const directMs: number[] = [];
  const added: number[] = [];
  const bodyBytes: number[] = [];
  const deviations: string[] = [];
  try {
    let first = true;
    for (const event of seeded.next) {
      if (gatewayMs.length >= samples) break;
      onProgress?.(gatewayMs.length, samples);
      const body = first ? { ...event.body, checkpoint: seeded.checkpoint } : event.body;
      await fake.enqueue(event.replies);
      let deviated = false;
      const t0 = performance.now();
      await sendSessionRequest({
        baseURL: gateway.url,
        body,
        expectedEnd: event.expectedEnd,
        onDeviation: (message) => {
          deviated = true;
          deviations.push(`event ${event.index}: ${message}`);
        },
      });
      const t1 = performance.now();
      const calls = event.replies.length;
      // The first request hydrates the checkpoint and stores the whole history: setup, not a turn.
      const measured = !first && calls === 1 && !deviated;
      first = false;
      if (!measured) continue;
      const log = (await getJson(
        gateway.url,
        `/v1/conversations/${conversationId}/provider-requests?limit=1`,
      )) as ProviderRequestsAnswer;
      const sent = log.requests.at(-1)?.body;
      await fake.enqueue(event.replies);
      const t2 = performance.now();
      await callDirectly(fake.url, sent);
      const t3 = performance.now();
      gatewayMs.push(t1 - t0);
      directMs.push(t3 - t2);
      added.push(t1 - t0 - (t3 - t2));
      bodyBytes.push(Buffer.byteLength(JSON.stringify(sent)));
      // The fake provider keeps every body it received; drop them (the cache state is irrelevant).
      await fake.reset();
    }
    onProgress?.(samples, samples);
    return {
      historyTurns,
      samples: gatewayMs.length,
      bodyBytes: quantile(bodyBytes, 0.5),
      gatewayP50Ms: quantile(gatewayMs, 0.5),
      gatewayP95Ms: quantile(gatewayMs, 0.95),
      directP50Ms: quantile(directMs, 0.5),
      directP95Ms: quantile(directMs, 0.95),
      addedP50Ms: quantile(added, 0.5),
      addedP95Ms: quantile(added, 0.95),
      deviations,
    };
  } finally {
    await gateway.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
