import { toModelRequest } from "@cursor/run";
import type { ModelRequest, ProviderAdapter, ProviderEvent, StreamOptions } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { CacheLedger } from "../cache/cache-ledger.js";
import { GatewayMetrics } from "../http/metrics.js";
import { ProviderRequestLog } from "../providers/provider-request-log.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { UsageRecorder } from "./usage-recorder.js";

/** An adapter that counts its serialisations and notes what each stream call was given. */
function countingAdapter() {
  let serializations = 0;
  const given: StreamOptions[] = [];
  const adapter: ProviderAdapter = {
    id: "counting",
    serialize: (request: ModelRequest) => {
      serializations += 1;
      return { body: { model: request.model, messages: request.messages.length }, warnings: [] };
    },
    async *stream(_request, options = {}): AsyncIterable<ProviderEvent> {
      given.push(options);
      yield { type: "text-delta", text: "ok" };
      yield {
        type: "usage",
        usage: { inputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
      };
      yield { type: "finish", reason: "stop" };
    },
  };
  return { adapter, given, serializations: () => serializations };
}

describe("RunCallRecorder", () => {
  it("serialises each call once: the recorded body is the one the adapter is given to send", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    const ledger = new CacheLedger({ maxBytes: 1_000_000 });
    const recorder = new UsageRecorder({
      store: store.providerCalls,
      requestLog: new ProviderRequestLog({ ledger }),
      metrics: new GatewayMetrics({ processMetrics: false }),
      logger: { error: (details) => expect.fail(JSON.stringify(details)) },
      redact: (text) => text,
      now: () => new Date("2026-12-01T10:00:00Z"),
      conversationKey: (tenant, conversationId) => `${tenant}/${conversationId}`,
    }).forRun({
      tenant: "t",
      conversationId: "c",
      runId: "r1",
      provider: "counting",
      catalogModel: "default",
      acceptedAt: performance.now(),
    });
    const counting = countingAdapter();
    const wrapped = recorder.wrap({ adapter: counting.adapter, kind: "model", epoch: () => 0 });
    const request = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec: { digest: "spec", instructions: "be brief", tools: [] },
      messages: [],
    });
    const signal = new AbortController().signal;
    const events: ProviderEvent[] = [];
    for await (const event of wrapped.stream(request, { signal })) events.push(event);
    recorder.committed();
    await recorder.flush();
    expect(events.map((event) => event.type)).toEqual(["text-delta", "usage", "finish"]);
    expect(counting.serializations()).toBe(1);
    expect(counting.given).toEqual([
      { signal, serialized: { body: { model: "m", messages: 0 }, warnings: [] } },
    ]);
    const [record] = await store.providerCalls.list({
      tenant: "t",
      conversationId: "c",
      limit: 10,
    });
    expect(record).toMatchObject({ outcome: "ok", usage: { inputTokens: 3, outputTokens: 1 } });
    await store.close();
  });
});
