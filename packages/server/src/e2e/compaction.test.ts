import type { RecordedRequest } from "@cursor/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { agentScript } from "./agent-script.js";
import { callIdPrefix, temporaryFolders, wireApis } from "./e2e-environment.js";
import { conversationView, userTurn, verifyConversation } from "./e2e-helpers.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { cacheShortfalls, prefixViolations } from "./provider-bodies.js";
import { isSummarizerCall, runScript, startScriptedProvider } from "./scripted-provider.js";
import { eventNames, runEnded, streamRun } from "./sse-run.js";

const folders = temporaryFolders("compaction");
afterAll(() => folders.removeAll());

interface HistoryMessage {
  readonly kind: string;
}

/** Main calls grouped by epoch: a summariser call ends one epoch, the next main call starts one. */
function epochs(requests: readonly RecordedRequest[]): RecordedRequest[][] {
  const groups: RecordedRequest[][] = [[]];
  for (const request of requests) {
    if (isSummarizerCall(request.body)) groups.push([]);
    else groups.at(-1)!.push(request);
  }
  return groups.filter((group) => group.length > 0);
}

describe.each(wireApis)("compaction through %s", (api) => {
  it("automatic, when the budget is exceeded: an explicit prefix reset, append-only within each epoch", async () => {
    const provider = await startScriptedProvider();
    // A 25 000-token window leaves a 5 000-token budget (20 000 are reserved): the 12-turn
    // session outgrows it a few times.
    const gateway = await startInProcessGateway({
      api,
      provider,
      dataDir: folders.create(),
      extra: { CURSOR_GATEWAY_CONTEXT_WINDOW: "25000" },
    });
    const conversationId = `auto-${api}`;
    try {
      const results = await runScript({
        baseURL: gateway.url,
        provider,
        requests: agentScript({ conversationId, callIdPrefix: callIdPrefix(api), turns: 12 }),
      });
      const compactions = results.flatMap((result) =>
        result.events.filter((event) => event.event === "compaction").map((event) => event.data),
      );
      expect(compactions.length).toBeGreaterThanOrEqual(1);
      // Each compaction is announced before its summariser call (an extra SSE event).
      for (const result of results) {
        const names = result.events
          .map((event) => event.event)
          .filter((name) => name.startsWith("compaction"));
        expect(names).toEqual(
          names.map((_, index) => (index % 2 === 0 ? "compaction.started" : "compaction")),
        );
      }
      expect(compactions).toEqual(
        compactions.map((_, index) => ({ reason: "auto", epoch: index + 1 })),
      );
      const requests = provider.fake.requests;
      expect(requests.filter((request) => isSummarizerCall(request.body))).toHaveLength(
        compactions.length,
      );
      const groups = epochs(requests);
      expect(groups).toHaveLength(compactions.length + 1);
      for (const group of groups) {
        expect(
          prefixViolations(
            api,
            group.map((request) => request.body),
          ),
        ).toEqual([]);
        expect(cacheShortfalls(group.slice(1))).toEqual([]);
      }
      // Invariant 6: the latest request context, then the summary, then the turn that compacted.
      const summary = await verifyConversation(gateway.url, conversationId);
      expect(summary.epoch).toBe(compactions.length);
      const history = (await conversationView(gateway.url, conversationId)).history
        .body as HistoryMessage[];
      expect(history.slice(0, 3).map((message) => message.kind)).toEqual([
        "request-context",
        "summary",
        "runtime",
      ]);
    } finally {
      await gateway.close();
      await provider.fake.close();
    }
  });

  it("manual (summarize): a new epoch with the summary only; the next turn projects the context again", async () => {
    const provider = await startScriptedProvider();
    const gateway = await startInProcessGateway({ api, provider, dataDir: folders.create() });
    const conversationId = `manual-${api}`;
    try {
      provider.reply = { type: "text", text: "One." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }));
      provider.reply = { type: "text", text: "Two." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 2 }));
      const summarize = {
        conversationId,
        runId: "run-summarize",
        mode: "agent",
        action: { type: "summarize" },
      };
      const calls = provider.fake.requests.length;
      const summarized = await streamRun(gateway.url, summarize);
      expect(eventNames(summarized.events)).toEqual([
        "run.started",
        "compaction.started",
        "usage",
        "compaction",
        "checkpoint",
        "run.ended",
      ]);
      expect(summarized.events[1]!.data).toEqual({ reason: "manual" });
      expect(summarized.events[3]!.data).toEqual({ reason: "manual", epoch: 1 });
      expect(runEnded(summarized.events)).toEqual({ reason: "completed" });
      expect(provider.fake.requests.length).toBe(calls + 1);
      const afterSummary = await conversationView(gateway.url, conversationId);
      expect(afterSummary.summary.body).toMatchObject({ epoch: 1, messages: 1 });
      expect((afterSummary.history.body as HistoryMessage[])[0]!.kind).toBe("summary");

      // Nothing new to summarise: a repeated summarize does not churn epochs or call anyone.
      const again = await streamRun(gateway.url, { ...summarize, runId: "run-summarize-2" });
      expect(runEnded(again.events)).toEqual({ reason: "completed" });
      expect(provider.fake.requests.length).toBe(calls + 1);
      expect(await conversationView(gateway.url, conversationId)).toEqual(afterSummary);

      provider.reply = { type: "text", text: "Three." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 3 }));
      provider.reply = { type: "text", text: "Four." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 4 }));
      const history = (await conversationView(gateway.url, conversationId)).history
        .body as HistoryMessage[];
      expect(history.map((message) => message.kind)).toEqual([
        "summary",
        "request-context",
        "runtime",
        "assistant",
        "runtime",
        "assistant",
      ]);
      const [third, fourth] = provider.fake.requests.slice(-2).map((request) => request.body);
      expect(prefixViolations(api, [third, fourth])).toEqual([]);
      expect(JSON.stringify(third)).not.toContain("One.");
    } finally {
      await gateway.close();
      await provider.fake.close();
    }
  });
});
