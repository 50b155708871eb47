import type { RecordedRequest } from "@cursor/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import type { RunningGateway } from "../start-gateway.js";
import type {
  CallView,
  CallsPage,
  DivergenceResponse,
  UsageSummaryView,
} from "../usage/usage-api.js";
import { temporaryFolders, wireApis } from "./e2e-environment.js";
import { toolResults, userTurn } from "./e2e-helpers.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import type { WireApi } from "./provider-bodies.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun, toolCalls } from "./sse-run.js";

const folders = temporaryFolders("usage");
const stores = e2eStores();
afterAll(async () => {
  await stores.dropAll();
  folders.removeAll();
});

async function calls(gateway: RunningGateway, conversationId: string): Promise<CallView[]> {
  const client = createGatewayClient({ baseURL: gateway.url });
  const all: CallView[] = [];
  let cursor: string | undefined;
  do {
    const answer = await client.get(
      `/v1/conversations/${conversationId}/calls?limit=2${cursor === undefined ? "" : `&cursor=${cursor}`}`,
    );
    expect(answer.status).toBe(200);
    const page = answer.body as CallsPage;
    all.push(...page.calls);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

/** The usage the fake provider counted for a request, as the gateway must have recorded it. */
function reported(request: RecordedRequest) {
  const usage = request.usage!;
  return {
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    ...(usage.cacheWrite1hTokens === undefined
      ? {}
      : { cacheWrite1hTokens: usage.cacheWrite1hTokens }),
    outputTokens: usage.outputTokens,
  };
}

async function run(
  gateway: RunningGateway,
  provider: ScriptedProvider,
  body: unknown,
  reply = provider.reply,
) {
  provider.reply = reply;
  const result = await streamRun(gateway.url, body);
  expect(result.status).toBe(200);
  lastToolCalls = toolCalls(result.events).map((call) => call.callId);
  return runEnded(result.events);
}

let lastToolCalls: string[] = [];

const mcp = (tools: string[]) => ({
  mcp: {
    servers: [
      {
        name: "db",
        instructions: "Query the database.",
        tools: tools.map((name) => ({
          name,
          description: `The ${name} tool.`,
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
        })),
      },
    ],
  },
});

describeEachStore("usage records of provider calls", ({ kind }) => {
  describe.each(wireApis)("through %s", (api: WireApi) => {
    it(
      "records each call as the provider reported it, across a restart, a retry, a failure, a break and a compaction",
      { timeout: 120_000 },
      async () => {
        const provider = await startScriptedProvider();
        const store = await stores.create({ kind, dataDir: folders.create() });
        const start = () =>
          startInProcessGateway({
            api,
            provider,
            dataDir: store.dataDir,
            extra: store.environment,
          });
        let gateway = await start();
        const conversationId = `usage-${api}`;
        try {
          // 1. A text turn, then a tool round (two model calls of one run).
          expect(
            await run(gateway, provider, userTurn({ conversationId, turn: 1 }), {
              type: "text",
              text: "The first answer.",
            }),
          ).toEqual({ reason: "completed" });
          expect(
            await run(gateway, provider, userTurn({ conversationId, turn: 2 }), {
              type: "tool-calls",
              calls: [{ name: "read_file", arguments: '{"path":"src/a.ts"}' }],
            }),
          ).toEqual({ reason: "awaiting-tools" });
          const [toolCallId] = lastToolCalls;
          expect(
            await run(
              gateway,
              provider,
              toolResults({
                conversationId,
                runId: "run-2",
                results: [{ callId: toolCallId!, output: "export const a = 1;" }],
              }),
              { type: "text", text: "a is 1." },
            ),
          ).toEqual({ reason: "completed" });
          let recorded = await calls(gateway, conversationId);
          expect(recorded).toHaveLength(3);
          expect(recorded.map((call) => call.usage)).toEqual(provider.fake.requests.map(reported));
          expect(
            recorded.map((call) => [call.kind, call.outcome, call.runId, call.attempt]),
          ).toEqual([
            ["model", "ok", "run-1", 1],
            ["model", "ok", "run-2", 1],
            ["model", "ok", "run-2", 1],
          ]);
          expect(recorded.map((call) => call.prefix.status)).toEqual([
            "first",
            "extends",
            "extends",
          ]);
          expect(recorded[1]!.prefix.sharedItems).toBe(recorded[0]!.prefix.historyItems);
          expect(recorded[2]!.prefix.previousCallId).toBe(recorded[1]!.callId);
          for (const call of recorded) {
            expect(call.timings.durationMs).toBeGreaterThan(0);
            expect(call.timings.timeToFirstTokenMs).toBeGreaterThan(0);
            expect(call.timings.timeToFirstTokenMs!).toBeLessThanOrEqual(call.timings.durationMs);
            expect(call.timings.gatewayOverheadMs).toBeGreaterThanOrEqual(0);
            expect(call.cachedRatio).toBe(
              call.usage!.inputTokens === 0
                ? null
                : call.usage!.cachedInputTokens / call.usage!.inputTokens,
            );
          }
          // The provider-request log names the same calls.
          const log = await createGatewayClient({ baseURL: gateway.url }).get(
            `/v1/conversations/${conversationId}/provider-requests?limit=10`,
          );
          expect(
            (log.body as { requests: { callId: string }[] }).requests.map((r) => r.callId),
          ).toEqual(recorded.map((call) => call.callId));

          // 2. A retry of a completed run calls no provider and records nothing.
          const before = provider.fake.requests.length;
          expect(
            await run(gateway, provider, userTurn({ conversationId, turn: 1 }), {
              type: "error",
              status: 401,
              message: "no call expected",
            }),
          ).toEqual({ reason: "completed" });
          expect(provider.fake.requests).toHaveLength(before);
          expect(await calls(gateway, conversationId)).toHaveLength(3);

          // 3. A restart keeps the records; the next call is compared with the stored fingerprint.
          const firstProcess = recorded[0]!.process.id;
          await gateway.close();
          gateway = await start();
          expect((await calls(gateway, conversationId)).map((call) => call.callId)).toEqual(
            recorded.map((call) => call.callId),
          );
          // A transient failure, then the retry's success: two records, the usage counted once.
          provider.fake.enqueue({ type: "error", status: 500, message: "upstream hiccup" });
          expect(
            await run(gateway, provider, userTurn({ conversationId, turn: 3 }), {
              type: "text",
              text: "Third.",
            }),
          ).toEqual({ reason: "completed" });
          recorded = await calls(gateway, conversationId);
          expect(recorded).toHaveLength(5);
          const [failed, retried] = recorded.slice(3);
          expect(failed).toMatchObject({
            outcome: "failed",
            attempt: 1,
            usage: null,
            cost: null,
            error: { retryable: true },
          });
          expect(failed!.process.id).not.toBe(firstProcess);
          expect(failed!.prefix).toMatchObject({
            status: "extends",
            sharedItems: recorded[2]!.prefix.historyItems,
          });
          expect(retried).toMatchObject({ outcome: "ok", attempt: 2, runId: "run-3" });
          expect(retried!.prefix).toMatchObject({
            status: "extends",
            previousCallId: failed!.callId,
          });
          expect(retried!.usage).toEqual(reported(provider.fake.requests.at(-1)!));

          // A failure that is not retried ends the run; it is recorded with its error.
          expect(
            await run(gateway, provider, userTurn({ conversationId, turn: 4 }), {
              type: "error",
              status: 401,
              message: "the key was revoked",
            }),
          ).toMatchObject({ reason: "failed" });
          recorded = await calls(gateway, conversationId);
          const last = recorded.at(-1)!;
          expect(last).toMatchObject({ outcome: "failed", attempt: 1, runId: "run-4" });
          expect(last.error?.retryable).toBe(false);

          // 4. Other MCP tools: the prefix breaks at the tools; the doctor says so and why.
          const withTools = (turn: number, tools: string[]) => ({
            ...userTurn({ conversationId, turn }),
            requestContext: {
              ...(userTurn({ conversationId, turn }).requestContext as object),
              ...mcp(tools),
            },
          });
          await run(gateway, provider, withTools(5, ["query"]), { type: "text", text: "Five." });
          await run(gateway, provider, withTools(6, ["query", "explain"]), {
            type: "text",
            text: "Six.",
          });
          recorded = await calls(gateway, conversationId);
          expect(recorded.at(-2)!.prefix).toMatchObject({
            status: "broke",
            divergence: { causeKind: "tools" },
          });
          const broken = recorded.at(-1)!;
          expect(broken.prefix).toMatchObject({
            status: "broke",
            divergence: { causeKind: "tools" },
            divergenceView: true,
          });
          expect(broken.prefix.divergence!.path).toMatch(/^tools/);
          const divergence = await createGatewayClient({ baseURL: gateway.url }).get(
            `/v1/conversations/${conversationId}/calls/${broken.callId}/divergence`,
          );
          expect(divergence.status).toBe(200);
          const view = (divergence.body as DivergenceResponse).view!;
          expect(view.previousCallId).toBe(recorded.at(-2)!.callId);
          expect(view.diff.cause.kind).toBe("tools");
          expect(view.diff.cause.summary).toContain("explain");
          expect(view.diff.diff.join("\n")).toContain("explain");

          // 5. A manual compaction: a summariser call, then the prefix resets by design.
          await run(
            gateway,
            provider,
            { conversationId, runId: "run-7", mode: "agent", action: { type: "summarize" } },
            { type: "text", text: "unused" },
          );
          await run(gateway, provider, userTurn({ conversationId, turn: 8 }), {
            type: "text",
            text: "Eight.",
          });
          recorded = await calls(gateway, conversationId);
          const [summarizer, afterCompaction] = recorded.slice(-2);
          expect(summarizer).toMatchObject({
            kind: "summarizer",
            prefix: { status: "not-compared" },
          });
          expect(summarizer!.usage).not.toBeNull();
          expect(afterCompaction).toMatchObject({
            kind: "model",
            epoch: 1,
            prefix: { status: "compaction" },
          });

          // Every provider call the fake provider saw has exactly one record, in order.
          expect(recorded).toHaveLength(provider.fake.requests.length);
          expect(recorded.map((call) => call.usage)).toEqual(
            provider.fake.requests.map((request) =>
              request.usage === null ? null : reported(request),
            ),
          );

          // The tenant summary adds up the same records.
          const summary = (await createGatewayClient({ baseURL: gateway.url }).get("/v1/usage"))
            .body as UsageSummaryView;
          const input = recorded.reduce((sum, call) => sum + (call.usage?.inputTokens ?? 0), 0);
          const cached = recorded.reduce(
            (sum, call) => sum + (call.usage?.cachedInputTokens ?? 0),
            0,
          );
          expect(summary).toMatchObject({
            conversations: 1,
            calls: recorded.length,
            failedCalls: 2,
            // Turn 5 added the MCP tools, turn 6 another one: two breaks at the tools.
            brokenPrefixes: 2,
            tokens: { inputTokens: input, cachedInputTokens: cached },
            cachedRatio: cached / input,
          });
          expect(summary.cost.usd).toBeGreaterThan(0);
          expect(summary.cost.savedUsd).toBeCloseTo(summary.cost.uncachedUsd - summary.cost.usd, 9);
          expect(summary.defaultPrices.asOf).toMatch(/^\d{4}-\d{2}$/);
        } finally {
          await gateway.close();
          await provider.fake.close();
        }
      },
    );
  });
});
