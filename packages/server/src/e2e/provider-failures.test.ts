import type { FakeReply } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders, testProviderKey, wireApis } from "./e2e-environment.js";
import { conversationView, userTurn } from "./e2e-helpers.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { historyItems, prefixViolations } from "./provider-bodies.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";
import type { StreamedRun } from "./sse-run.js";

const folders = temporaryFolders("failures");
const stores = e2eStores();
afterAll(async () => {
  await stores.dropAll();
  folders.removeAll();
});

interface HistoryMessage {
  readonly id: string;
  readonly kind: string;
}

describeEachStore("provider failures", ({ kind }) => {
  describe.each(wireApis)("through %s", (api) => {
    let provider: ScriptedProvider;
    let gateway: RunningGateway;

    beforeAll(async () => {
      provider = await startScriptedProvider();
      // Retries after 10–20 ms (a rate limit's retry-after is honoured up to 5 s), 3 attempts.
      const store = await stores.create({ kind, dataDir: folders.create() });
      gateway = await startInProcessGateway({
        api,
        provider,
        dataDir: store.dataDir,
        extra: store.environment,
      });
    });

    afterAll(async () => {
      await gateway.close();
      await provider.fake.close();
    });

    /**
     * A conversation with one good turn, then turn 2 with `replies` queued: returns turn 2's
     * stream, the provider bodies it caused and the conversation before it.
     */
    async function secondTurnWith(conversationId: string, replies: FakeReply[]) {
      provider.reply = { type: "text", text: "The first answer." };
      const first = await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }));
      expect(runEnded(first.events)).toEqual({ reason: "completed" });
      const firstBody = provider.fake.requests.at(-1)!.body;
      const before = await conversationView(gateway.url, conversationId);
      provider.reply = { type: "error", status: 401, message: "no more replies were scripted" };
      provider.fake.enqueue(...replies);
      const calls = provider.fake.requests.length;
      const startedAt = Date.now();
      const second = await streamRun(gateway.url, userTurn({ conversationId, turn: 2 }));
      const elapsedMs = Date.now() - startedAt;
      expect(provider.fake.pendingReplies()).toBe(0);
      return {
        second,
        elapsedMs,
        firstBody,
        bodies: provider.fake.requests.slice(calls).map((request) => request.body),
        before,
      };
    }

    /** After a failed turn: the head is what it was, and the next turn appends to turn 1. */
    async function expectHeadUnchangedAndContinues(
      conversationId: string,
      { before, firstBody }: { before: unknown; firstBody: unknown },
    ) {
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);
      provider.reply = { type: "text", text: "The third answer." };
      const third = await streamRun(gateway.url, userTurn({ conversationId, turn: 3 }));
      expect(runEnded(third.events)).toEqual({ reason: "completed" });
      const thirdBody = provider.fake.requests.at(-1)!.body;
      expect(prefixViolations(api, [firstBody, thirdBody])).toEqual([]);
      return thirdBody;
    }

    const failed = (result: StreamedRun) => runEnded(result.events);

    it("429 with retry-after, then an answer: waits as told and completes", async () => {
      const { second, elapsedMs, bodies } = await secondTurnWith("rate-limit-once", [
        { type: "error", status: 429, retryAfterSeconds: 1, message: "slow down" },
        { type: "text", text: "The second answer." },
      ]);
      expect(runEnded(second.events)).toEqual({ reason: "completed" });
      const retry = second.events.find((event) => event.event === "retry");
      expect(retry?.data).toMatchObject({
        attempt: 1,
        delayMs: 1000,
        error: { code: "rate_limited" },
      });
      expect(elapsedMs).toBeGreaterThanOrEqual(1000);
      // The retry sends the very same body.
      expect(bodies).toHaveLength(2);
      expect(JSON.stringify(bodies[1])).toBe(JSON.stringify(bodies[0]));
    });

    it("429 on every attempt: failed rate_limited, the head unchanged", async () => {
      const conversationId = "rate-limit-always";
      const outcome = await secondTurnWith(conversationId, [
        { type: "error", status: 429, message: "slow down" },
        { type: "error", status: 429, message: "slow down" },
        { type: "error", status: 429, message: "slow down" },
      ]);
      expect(outcome.bodies).toHaveLength(3);
      expect(failed(outcome.second)).toMatchObject({
        reason: "failed",
        error: { code: "rate_limited" },
      });
      await expectHeadUnchangedAndContinues(conversationId, outcome);
    });

    it("500 then an answer: retried and completed", async () => {
      const { second, bodies } = await secondTurnWith("server-error-once", [
        { type: "error", status: 500, message: "oops" },
        { type: "text", text: "The second answer." },
      ]);
      expect(runEnded(second.events)).toEqual({ reason: "completed" });
      expect(bodies).toHaveLength(2);
    });

    it("500 on every attempt: failed provider_error, the head unchanged", async () => {
      const conversationId = "server-error-always";
      const outcome = await secondTurnWith(conversationId, [
        { type: "error", status: 500, message: "oops" },
        { type: "error", status: 500, message: "oops" },
        { type: "error", status: 500, message: "oops" },
      ]);
      expect(failed(outcome.second)).toMatchObject({
        reason: "failed",
        error: { code: "provider_error" },
      });
      await expectHeadUnchangedAndContinues(conversationId, outcome);
    });

    it("a stream cut before any text: retried and completed", async () => {
      const { second, bodies } = await secondTurnWith("cut-early", [
        { type: "cut", afterEvents: 1, reply: { type: "text", text: "Never seen." } },
        { type: "text", text: "The second answer." },
      ]);
      expect(runEnded(second.events)).toEqual({ reason: "completed" });
      const text = second.events
        .filter((event) => event.event === "text.delta")
        .map((event) => (event.data as { text: string }).text)
        .join("");
      expect(text).toBe("The second answer.");
      expect(bodies).toHaveLength(2);
    });

    it("a stream cut after text reached the client: failed, no partial answer stored", async () => {
      const conversationId = "cut-late";
      // Its words appear nowhere else in the conversation (the request context says "This
      // describes …"), so finding any streamed piece of it means the partial answer was stored.
      const partial =
        "Zebrafish quartz answer, cut off in the middle, must never be stored anywhere.";
      const outcome = await secondTurnWith(conversationId, [
        { type: "cut", afterEvents: 7, reply: { type: "text", text: partial, chunks: 12 } },
      ]);
      const deltas = outcome.second.events.filter((event) => event.event === "text.delta");
      expect(deltas.length).toBeGreaterThan(0);
      expect(failed(outcome.second)).toMatchObject({ reason: "failed" });
      expect(outcome.bodies).toHaveLength(1);
      const thirdBody = await expectHeadUnchangedAndContinues(conversationId, outcome);
      const history = (await conversationView(gateway.url, conversationId)).history.body;
      const streamed = deltas.map((event) => (event.data as { text: string }).text).join("");
      expect(partial.startsWith(streamed)).toBe(true);
      expect(JSON.stringify(history)).not.toContain(streamed);
      expect(JSON.stringify(thirdBody)).not.toContain(streamed);
      expect(JSON.stringify(history)).not.toContain("Zebrafish");
      expect(JSON.stringify(thirdBody)).not.toContain("Zebrafish");
    });

    it("a refused key (401): failed at once, no retry, the key never in the error", async () => {
      const conversationId = "refused-key";
      const outcome = await secondTurnWith(conversationId, [
        { type: "error", status: 401, message: `invalid key ${testProviderKey}` },
      ]);
      expect(outcome.bodies).toHaveLength(1);
      const ended = failed(outcome.second);
      expect(ended).toMatchObject({ reason: "failed", error: { code: "provider_authentication" } });
      expect(JSON.stringify(outcome.second.events)).not.toContain(testProviderKey);
      await expectHeadUnchangedAndContinues(conversationId, outcome);
    });

    it("a context overflow: compacts once (a new epoch) and the retry completes", async () => {
      const conversationId = "overflow-once";
      const { second, bodies, firstBody } = await secondTurnWith(conversationId, [
        { type: "context-overflow" },
        { type: "text", text: "Summary: the user asked about module 1; it was answered." },
        { type: "text", text: "The second answer." },
      ]);
      expect(runEnded(second.events)).toEqual({ reason: "completed" });
      expect(
        second.events.filter((event) => event.event === "compaction").map((e) => e.data),
      ).toEqual([{ reason: "auto", epoch: 1 }]);
      expect(bodies).toHaveLength(3);
      const view = await conversationView(gateway.url, conversationId);
      expect(view.summary.body).toMatchObject({ epoch: 1, messages: 4 });
      // Invariant 6: the latest request context, the summary, the current turn, its answer.
      expect((view.history.body as HistoryMessage[]).map((message) => message.kind)).toEqual([
        "request-context",
        "summary",
        "runtime",
        "assistant",
      ]);
      // The new epoch is an explicit prefix reset: the retried call does not extend the old
      // prefix, it starts a new one that the next turn extends.
      expect(prefixViolations(api, [firstBody, bodies[2]])).not.toEqual([]);
      expect(JSON.stringify(bodies[2])).toContain("Summary: the user asked about module 1");
      expect(JSON.stringify(bodies[2])).not.toContain("The first answer.");
      provider.reply = { type: "text", text: "The third answer." };
      const third = await streamRun(gateway.url, userTurn({ conversationId, turn: 3 }));
      expect(runEnded(third.events)).toEqual({ reason: "completed" });
      const thirdBody = provider.fake.requests.at(-1)!.body;
      expect(prefixViolations(api, [bodies[2], thirdBody])).toEqual([]);
      expect(historyItems(api, thirdBody).length).toBeGreaterThan(
        historyItems(api, bodies[2]).length,
      );
      expect(provider.fake.requests.at(-1)!.cache?.pureAppend).toBe(true);
    });

    it("a second overflow after compacting: failed context_overflow, no answer stored", async () => {
      const conversationId = "overflow-twice";
      const { second } = await secondTurnWith(conversationId, [
        { type: "context-overflow" },
        { type: "text", text: "Summary: short." },
        { type: "context-overflow" },
      ]);
      expect(failed(second)).toMatchObject({
        reason: "failed",
        error: { code: "context_overflow" },
      });
      const history = (await conversationView(gateway.url, conversationId)).history
        .body as HistoryMessage[];
      expect(history.filter((message) => message.kind === "assistant")).toEqual([]);
    });
  });
});
