import { afterAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import { agentScript } from "./agent-script.js";
import {
  callIdPrefix,
  gatewayEnvironment,
  temporaryFolders,
  testProviderKey,
  wireApis,
} from "./e2e-environment.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import { killAllGatewayProcesses, startGatewayProcess } from "./gateway-process.js";
import { cacheShortfalls, historyItems, prefixViolations } from "./provider-bodies.js";
import { runScript, startScriptedProvider } from "./scripted-provider.js";

const folders = temporaryFolders("session");
const stores = e2eStores();
afterAll(async () => {
  await killAllGatewayProcesses();
  await stores.dropAll();
  folders.removeAll();
});

interface HistoryEntry {
  readonly id: string;
  readonly kind: string;
}

describeEachStore("a 20-turn agent session", ({ kind }) => {
  describe.each(wireApis)("through %s", (api) => {
    it(
      "sends append-only bodies and gets the best possible cached tokens on every call",
      { timeout: 120_000 },
      async () => {
        const provider = await startScriptedProvider();
        const dataDir = folders.create();
        const store = await stores.create({ kind, dataDir });
        const gateway = await startGatewayProcess(
          gatewayEnvironment({ api, fake: provider.fake, dataDir, extra: store.environment }),
        );
        const conversationId = `session-${api}`;
        const script = agentScript({ conversationId, callIdPrefix: callIdPrefix(api) });
        try {
          const results = await runScript({ baseURL: gateway.url, provider, requests: script });
          const recorded = provider.fake.requests;

          // One provider call per gateway request, all answered, all through this API.
          expect(new Set(script.map((request) => request.turn)).size).toBe(20);
          expect(recorded).toHaveLength(script.length);
          expect(recorded.map((request) => [request.api, request.status, request.stream])).toEqual(
            script.map(() => [api, 200, true]),
          );

          // Invariants 1 and 2 on the wire: one epoch, every body an exact append of the one
          // before, instructions and tools byte-identical (mode switches included).
          const bodies = recorded.map((request) => request.body);
          expect(prefixViolations(api, bodies)).toEqual([]);
          const lengths = bodies.map((body) => historyItems(api, body).length);
          expect(
            lengths.every((length, index) => index === 0 || length > lengths[index - 1]!),
          ).toBe(true);

          // The fake provider's cache simulation: every call after the first reads exactly the
          // best possible (the previous request rounded down to the cache granularity).
          expect(recorded[0]!.cache!.bestPossibleCachedTokens).toBe(0);
          expect(cacheShortfalls(recorded.slice(1))).toEqual([]);
          const cached = recorded.slice(1).map((request) => request.usage!.cachedInputTokens);
          expect(cached.every((tokens) => tokens > 0)).toBe(true);
          expect(provider.fake.cacheStats().total.prefixEfficiency).toBe(1);

          // The gateway reports each call's usage exactly as the provider counted it.
          const reported = results.flatMap((result) =>
            result.events.filter((event) => event.event === "usage").map((event) => event.data),
          );
          expect(reported).toEqual(
            recorded.map((request) => ({
              inputTokens: request.usage!.inputTokens,
              cachedInputTokens: request.usage!.cachedInputTokens,
              cacheWriteTokens: request.usage!.cacheWriteTokens,
              outputTokens: request.usage!.outputTokens,
            })),
          );

          // The key went to the provider only as its own auth header: never into a body, the
          // store (database and write-ahead log, or every row) or the log.
          expect(JSON.stringify(bodies)).not.toContain(testProviderKey);
          expect(await store.contains(testProviderKey)).toBe(false);
          expect(gateway.output()).not.toContain(testProviderKey);

          // The stored conversation: request context A, B, A (reverted: a new event), C — four
          // context messages, one runtime message per event, nothing duplicated.
          const client = createGatewayClient({ baseURL: gateway.url });
          const history = (await client.get(`/v1/conversations/${conversationId}/history`))
            .body as HistoryEntry[];
          const summary = await client.get(`/v1/conversations/${conversationId}`);
          expect(summary.status).toBe(200);
          expect(summary.body).toMatchObject({
            conversationId,
            epoch: 0,
            messages: history.length,
            usage: {
              inputTokens: recorded.reduce((sum, request) => sum + request.usage!.inputTokens, 0),
              cachedInputTokens: recorded.reduce(
                (sum, request) => sum + request.usage!.cachedInputTokens,
                0,
              ),
            },
          });
          expect(new Set(history.map((message) => message.id)).size).toBe(history.length);
          expect(history.filter((message) => message.kind === "request-context")).toHaveLength(4);
          expect(history.filter((message) => message.kind === "runtime")).toHaveLength(20);
          const toolResults = script.flatMap((request) =>
            (request.body.action as { type: string; results?: unknown[] }).type === "tool-results"
              ? ((request.body.action as { results: unknown[] }).results ?? [])
              : [],
          );
          expect(history.filter((message) => message.kind === "tool-result")).toHaveLength(
            toolResults.length,
          );
          expect(history.filter((message) => message.kind === "assistant")).toHaveLength(
            script.length,
          );
        } finally {
          await gateway.stop();
          await provider.fake.close();
        }
      },
    );
  });
});
