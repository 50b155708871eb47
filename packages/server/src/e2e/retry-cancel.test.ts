import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGatewayClient } from "../client/gateway-client.js";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders } from "./e2e-environment.js";
import { conversationView, toolResults, userTurn, waitFor } from "./e2e-helpers.js";
import { describeEachStore, e2eStores } from "./e2e-stores.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { prefixViolations } from "./provider-bodies.js";
import { startScriptedProvider, unexpectedCall } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { eventNames, runEnded, streamRun, toolCalls } from "./sse-run.js";
import type { StreamedRun } from "./sse-run.js";

const folders = temporaryFolders("retry");
const stores = e2eStores();
// One gateway per store suite below (they run one after the other).
let provider: ScriptedProvider;
let gateway: RunningGateway;

afterAll(async () => {
  await stores.dropAll();
  folders.removeAll();
});

const slowText = (text: string) =>
  ({ type: "slow", delayMsPerEvent: 25, reply: { type: "text", text, chunks: 8 } }) as const;

/** Sends `body` like a client retrying after a dropped connection: again on 409 (still running). */
async function retryUntilAccepted(body: unknown): Promise<StreamedRun> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const result = await streamRun(gateway.url, body);
    if (result.status !== 409) return result;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the conversation stayed busy");
}

async function dropAfter(body: unknown, event: string): Promise<StreamedRun> {
  const controller = new AbortController();
  return streamRun(gateway.url, body, {
    signal: controller.signal,
    onEvent: (received) => {
      if (received.event === event) controller.abort();
    },
  });
}

const providerCalls = () => provider.fake.requests.length;

describeEachStore("retries and cancel", ({ kind }) => {
  beforeAll(async () => {
    provider = await startScriptedProvider();
    const store = await stores.create({ kind, dataDir: folders.create() });
    gateway = await startInProcessGateway({
      provider,
      dataDir: store.dataDir,
      extra: store.environment,
    });
  });

  afterAll(async () => {
    await gateway.close();
    await provider.fake.close();
  });

  describe("a retried user-message", () => {
    it("after a dropped connection: the run finished without its client, the retry replays it", async () => {
      const conversationId = "retry-dropped";
      const body = userTurn({ conversationId, turn: 1 });
      const calls = providerCalls();
      provider.reply = slowText("Module 1 parses the configuration.");
      const dropped = await dropAfter(body, "text.delta");
      expect(dropped).toMatchObject({ status: 200, disconnected: true });
      expect(eventNames(dropped.events)).toEqual(["run.started", "text.delta"]);

      // The run goes on and commits (request context, runtime message, answer).
      await waitFor(async () => {
        const view = await conversationView(gateway.url, conversationId);
        return (
          view.summary.status === 200 && (view.summary.body as { messages: number }).messages === 3
        );
      });
      provider.reply = unexpectedCall;
      const retried = await retryUntilAccepted(body);
      expect(retried.status).toBe(200);
      expect(eventNames(retried.events)).toEqual([
        "run.started",
        "text.delta",
        "checkpoint",
        "run.ended",
      ]);
      expect(retried.events[1]!.data).toEqual({ text: "Module 1 parses the configuration." });
      expect(runEnded(retried.events)).toEqual({ reason: "completed" });
      expect(providerCalls()).toBe(calls + 1);

      const before = await conversationView(gateway.url, conversationId);
      const again = await streamRun(gateway.url, body);
      expect(runEnded(again.events)).toEqual({ reason: "completed" });
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);
      expect((before.history.body as { kind: string }[]).map((message) => message.kind)).toEqual([
        "request-context",
        "runtime",
        "assistant",
      ]);
      expect(providerCalls()).toBe(calls + 1);
    });

    it("after a dropped connection during tool calls: the retry sends the calls again", async () => {
      const conversationId = "retry-dropped-tools";
      const body = userTurn({ conversationId, turn: 1 });
      const calls = providerCalls();
      provider.reply = {
        type: "slow",
        delayMsPerEvent: 25,
        reply: {
          type: "tool-calls",
          calls: [
            { name: "read_file", arguments: '{"path":"/w/a.ts"}', callId: "call_drop_1" },
            { name: "read_file", arguments: '{"path":"/w/b.ts"}', callId: "call_drop_2" },
          ],
        },
      };
      const dropped = await dropAfter(body, "run.started");
      expect(dropped.disconnected).toBe(true);
      await waitFor(async () => {
        const view = await conversationView(gateway.url, conversationId);
        return view.summary.status === 200;
      });
      provider.reply = unexpectedCall;
      const retried = await retryUntilAccepted(body);
      // Without the tool calls the client could never answer them: they are sent again.
      expect(eventNames(retried.events)).toEqual([
        "run.started",
        "tool.call",
        "tool.call",
        "checkpoint",
        "run.ended",
      ]);
      expect(toolCalls(retried.events)).toEqual([
        { callId: "call_drop_1", name: "read_file", arguments: '{"path":"/w/a.ts"}' },
        { callId: "call_drop_2", name: "read_file", arguments: '{"path":"/w/b.ts"}' },
      ]);
      expect(runEnded(retried.events)).toEqual({ reason: "awaiting-tools" });
      expect(providerCalls()).toBe(calls + 1);

      provider.reply = { type: "text", text: "Both files export one constant." };
      const results = toolResults({
        conversationId,
        runId: "run-1",
        results: [
          { callId: "call_drop_1", output: "export const a = 1;" },
          { callId: "call_drop_2", output: "export const b = 2;" },
        ],
      });
      const continued = await streamRun(gateway.url, results);
      expect(runEnded(continued.events)).toEqual({ reason: "completed" });
      // The same results again (the client lost that answer too): replayed, nothing appended.
      provider.reply = unexpectedCall;
      const before = await conversationView(gateway.url, conversationId);
      const resent = await streamRun(gateway.url, results);
      expect(runEnded(resent.events)).toEqual({ reason: "completed" });
      expect(
        resent.events
          .filter((event) => event.event === "text.delta")
          .map((event) => (event.data as { text: string }).text)
          .join(""),
      ).toBe("Both files export one constant.");
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);
      const history = (await conversationView(gateway.url, conversationId)).history.body as {
        id: string;
        kind: string;
      }[];
      expect(history.map((message) => message.kind)).toEqual([
        "request-context",
        "runtime",
        "assistant",
        "tool-result",
        "tool-result",
        "assistant",
      ]);
      expect(providerCalls()).toBe(calls + 2);
    });

    it("of a completed run answers completed with no provider call; a repeated background completion too", async () => {
      const conversationId = "retry-completed";
      const body = userTurn({ conversationId, turn: 1 });
      provider.reply = { type: "text", text: "Done." };
      expect(runEnded((await streamRun(gateway.url, body)).events)).toEqual({
        reason: "completed",
      });
      const background = {
        conversationId,
        runId: "run-bg",
        mode: "agent",
        action: {
          type: "background-completion",
          completions: [
            { taskId: "t1", kind: "shell", status: "success", title: "pnpm build", detail: "ok" },
          ],
        },
      };
      provider.reply = { type: "text", text: "The build passed." };
      expect(runEnded((await streamRun(gateway.url, background)).events)).toEqual({
        reason: "completed",
      });
      const before = await conversationView(gateway.url, conversationId);
      const calls = providerCalls();
      provider.reply = unexpectedCall;

      const retried = await streamRun(gateway.url, body);
      expect(retried.status).toBe(200);
      expect(eventNames(retried.events)).toEqual([
        "run.started",
        "text.delta",
        "checkpoint",
        "run.ended",
      ]);
      expect(retried.events[1]!.data).toEqual({ text: "Done." });
      expect(runEnded(retried.events)).toEqual({ reason: "completed" });

      // The same completions under a new run id: all delivered before, nothing to do.
      const repeated = await streamRun(gateway.url, { ...background, runId: "run-bg-2" });
      expect(repeated.status).toBe(200);
      expect(runEnded(repeated.events)).toEqual({ reason: "completed" });
      expect(toolCalls(repeated.events)).toEqual([]);

      expect(providerCalls()).toBe(calls);
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);
    });
  });

  describe("a busy conversation", () => {
    it("answers 409 to a second run, and cancel ends the run cancelled with the head unchanged", async () => {
      const conversationId = "busy";
      const firstCall = providerCalls();
      provider.reply = { type: "text", text: "First answer." };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }));
      const before = await conversationView(gateway.url, conversationId);
      const client = createGatewayClient({ baseURL: gateway.url });
      expect(await client.post(`/v1/conversations/${conversationId}/cancel`)).toEqual({
        status: 200,
        body: { cancelled: false },
      });

      provider.reply = {
        type: "slow",
        delayMsPerEvent: 25,
        reply: { type: "text", text: "A slow answer that will not be kept.", chunks: 40 },
      };
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const slow = streamRun(gateway.url, userTurn({ conversationId, turn: 2 }), {
        onEvent: (event) => {
          if (event.event === "text.delta") started();
        },
      });
      await running;

      for (const body of [
        userTurn({ conversationId, turn: 3 }),
        userTurn({ conversationId, turn: 2 }),
        { conversationId, runId: "run-x", mode: "agent", action: { type: "summarize" } },
      ]) {
        const second = await streamRun(gateway.url, body);
        expect(second.status).toBe(409);
        expect(second.body).toEqual({
          error: {
            code: "conflict",
            message: `a run of conversation ${conversationId} is in progress`,
          },
        });
      }

      expect(await client.post(`/v1/conversations/${conversationId}/cancel`)).toEqual({
        status: 200,
        body: { cancelled: true },
      });
      const cancelled = await slow;
      expect(cancelled.status).toBe(200);
      expect(runEnded(cancelled.events)).toEqual({ reason: "cancelled" });
      expect(eventNames(cancelled.events).filter((name) => name === "run.ended")).toHaveLength(1);
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);

      // The conversation goes on from the head it had: the cancelled turn left no trace.
      provider.reply = { type: "text", text: "Third answer." };
      const next = await streamRun(gateway.url, userTurn({ conversationId, turn: 3 }));
      expect(runEnded(next.events)).toEqual({ reason: "completed" });
      // Three provider calls: turn 1, the cancelled turn 2, turn 3. Turn 3 appends to turn 1;
      // the cancelled turn is not in it.
      const own = provider.fake.requests.slice(firstCall).map((request) => request.body);
      expect(own).toHaveLength(3);
      expect(prefixViolations("openai-responses", [own[0], own[2]])).toEqual([]);
      expect(JSON.stringify(own[1])).toContain("Question 2");
      expect(JSON.stringify(own[2])).not.toContain("Question 2");
    });

    it("cancels a tool-results continuation without storing the results", async () => {
      const conversationId = "busy-tools";
      provider.reply = {
        type: "tool-calls",
        calls: [{ name: "grep", arguments: '{"pattern":"x"}', callId: "call_busy_1" }],
      };
      await streamRun(gateway.url, userTurn({ conversationId, turn: 1 }));
      const before = await conversationView(gateway.url, conversationId);
      const results = toolResults({
        conversationId,
        runId: "run-1",
        results: [{ callId: "call_busy_1", output: "a.ts:1: x" }],
      });
      provider.reply = slowText("Found one match in a.ts.");
      const client = createGatewayClient({ baseURL: gateway.url });
      const continued = await streamRun(gateway.url, results, {
        onEvent: async (event) => {
          if (event.event === "text.delta") {
            await client.post(`/v1/conversations/${conversationId}/cancel`);
          }
        },
      });
      expect(runEnded(continued.events)).toEqual({ reason: "cancelled" });
      expect(await conversationView(gateway.url, conversationId)).toEqual(before);

      provider.reply = { type: "text", text: "Found one match." };
      const resent = await streamRun(gateway.url, results);
      expect(runEnded(resent.events)).toEqual({ reason: "completed" });
    });
  });
});
