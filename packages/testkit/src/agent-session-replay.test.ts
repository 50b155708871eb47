import {
  HistoryLog,
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  sha256Hex,
  toModelRequest,
} from "@cursor/run";
import type { CanonicalMessage, ToolCall } from "@cursor/run";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toyAdapter } from "./__fixtures__/toy-adapters.js";
import { conformancePromptSpec } from "./conversation-arbitrary.js";
import { startFakeProvider } from "@cursor/fake-provider";
import type { FakeProvider } from "@cursor/fake-provider";
import { generateAgentSession } from "./generate-agent-session.js";

// End to end through the real HTTP server: a generated session, projected append-only by a
// minimal stand-in for the gateway, must reach 100% prefix efficiency except where a compaction
// resets the prefix.

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => provider.close());

interface ResponsesOutput {
  output: {
    type: string;
    call_id?: string;
    name?: string;
    arguments?: string;
    content?: { text?: string }[];
    summary?: { text: string }[];
  }[];
}

describe("a generated session against the fake provider", () => {
  it("keeps every pure-append request at its best possible cached count", async () => {
    const session = generateAgentSession({ seed: 21, turns: 12, toolResultChars: 3000 });
    const adapter = toyAdapter();
    const log = new HistoryLog();
    let latestContextDigest = "";
    let calls = 0;

    const callModel = async (runId: string) => {
      calls += 1;
      const request = toModelRequest({
        conversationId: session.conversationId,
        model: "gpt-5",
        promptSpec: conformancePromptSpec,
        messages: log.messages,
      });
      const { body } = adapter.serialize(request);
      const response = await fetch(`${provider.openaiBaseURL}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...body, prompt_cache_key: session.conversationId, store: false }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      const answer = (await response.json()) as ResponsesOutput;
      const toolCalls: ToolCall[] = answer.output
        .filter((item) => item.type === "function_call")
        .map((item, index) => ({
          index,
          callId: item.call_id!,
          name: item.name!,
          arguments: item.arguments!,
        }));
      const text = answer.output.find((item) => item.type === "message")?.content?.[0]?.text ?? "";
      const reasoning = answer.output.find((item) => item.type === "reasoning");
      log.append(
        createAssistantMessage({
          runId,
          step: calls,
          text,
          reasoning: reasoning?.summary?.[0]?.text ?? "",
          toolCalls,
          replay:
            reasoning === undefined ? {} : { toy: { summary: reasoning.summary?.[0]?.text ?? "" } },
        }),
      );
    };

    const contextMessage = (text: string, eventId: string): CanonicalMessage => {
      const digest = sha256Hex(text);
      latestContextDigest = digest;
      return createRequestContextMessage({ eventId, digest, text });
    };

    for (const event of session.events) {
      if (event.type === "restart" || event.type === "retry") continue;
      if (event.type === "background-completion" && event.duplicate) continue;
      provider.enqueue(...event.replies);
      const { body } = event;
      switch (body.action.type) {
        case "user-message": {
          const text = JSON.stringify(body.requestContext);
          if (sha256Hex(text) !== latestContextDigest)
            log.append(contextMessage(text, `ctx.${body.action.message.id}`));
          log.append(
            createRuntimeMessage({
              eventId: `turn.${body.action.message.id}`,
              runtimeKind: "user-turn",
              content: [
                { type: "text", text: `<mode>${body.mode}</mode>\n${body.action.message.text}` },
              ],
            }),
          );
          break;
        }
        case "tool-results": {
          const pending = new Map(log.pendingToolCalls().map((call) => [call.callId, call.name]));
          log.append(
            body.action.results.map((result) =>
              createToolResultMessage({
                callId: result.callId,
                name: pending.get(result.callId)!,
                content: result.output,
                isError: result.isError ?? false,
              }),
            ),
          );
          break;
        }
        case "background-completion":
          log.append(
            createRuntimeMessage({
              eventId: `bg.${body.runId}`,
              runtimeKind: "background-completion",
              content: [{ type: "text", text: JSON.stringify(body.action.completions) }],
            }),
          );
          break;
        case "inject-context":
          log.append(
            createRuntimeMessage({
              eventId: `inject.${body.action.injectionId}`,
              runtimeKind: "injected-context",
              content: [{ type: "text", text: body.action.text }],
            }),
          );
          break;
        case "summarize": {
          await callModel(body.runId);
          const latest = log.latestRequestContext()!;
          const summary = log.messages.at(-1)!;
          log.startEpoch([
            latest,
            createSummaryMessage({
              summarizedEpoch: log.epoch,
              text: summary.kind === "assistant" ? summary.text : "",
            }),
          ]);
          continue;
        }
        default: {
          const exhaustive: never = body.action;
          throw new Error(String(exhaustive));
        }
      }
      await callModel(body.runId);
    }

    expect(provider.pendingReplies()).toBe(0);
    expect(provider.requests).toHaveLength(calls);
    const diagnostics = provider.requests.map((request) => request.cache!);
    const resets = diagnostics.filter((cache) => !cache.pureAppend);
    // Exactly one prefix reset: the first request after the compaction.
    expect(resets).toHaveLength(1);
    // The compaction keeps the latest request context (same bytes here) and replaces the rest.
    expect(resets[0]!.divergence?.label).toMatch(/^input item [01]$/);
    for (const cache of diagnostics) {
      if (cache.pureAppend) expect(cache.cachedTokens).toBe(cache.bestPossibleCachedTokens);
    }
    const stats = provider.cacheStats();
    expect(stats.sessions).toHaveLength(1);
    // The compacted request is small (context + summary + turn), so its reset costs nothing the
    // previous request could have given it: the session sits at 100% of the physical limit.
    expect(stats.total.prefixEfficiency).toBe(1);
    expect(resets[0]!.inputTokens).toBeLessThan(
      diagnostics[diagnostics.indexOf(resets[0]!) - 1]!.inputTokens,
    );
    expect(stats.total.cachedRatio).toBeGreaterThan(0.5);
  });
});
