import {
  compileRequestContext,
  createCursorPromptSpec,
  summarizerInstructions,
} from "@cursor/request";
import { describe, expect, it } from "vitest";
import { HistoryLog } from "@cursor/run";
import { createConversationCompactor } from "./conversation-compactor.js";
import { ScriptedProvider } from "./testing/scripted-provider.js";
import { contextIds, expectPrefixOf, ids, textOf } from "./testing/prefix-assertions.js";
import { requestContext, summarize, toolResults, userMessage } from "./testing/requests.js";
import { TestGateway } from "./testing/test-gateway.js";

const contextA = requestContext("");
const contextB = requestContext(" M src/app.ts");
const promptSpec = createCursorPromptSpec({ modelDisplayName: "Test Model" });

function contextId(messageId: string, context: typeof contextA): string {
  return `request-context:ctx.${messageId}.${compileRequestContext(context)!.digest.slice(0, 16)}`;
}
const runtimeId = (messageId: string) =>
  expect.stringMatching(new RegExp(`^runtime:turn\\.${messageId}\\.[0-9a-f]{16}$`));

/** Two answered turns (A, then B), then a third turn that compacts automatically. */
async function compactedOnThirdTurn(thirdContext: typeof contextA) {
  const gateway = new TestGateway({ promptSpec });
  await gateway.send(userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }));
  await gateway.send(userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextB }));
  gateway.budgetTokens = 1; // the next model call is over budget: compact first
  gateway.summarizer.script({ text: "The user asked for one and two." });
  const third = await gateway.send(
    userMessage({ runId: "r3", messageId: "m3", text: "three", context: thirdContext }),
  );
  gateway.budgetTokens = undefined;
  return { gateway, third };
}

describe("compaction", () => {
  it("auto: only the latest context survives outside the summary, in the documented order", async () => {
    const { gateway, third } = await compactedOnThirdTurn(contextB);
    expect(third.outcome?.compactions).toEqual([{ epoch: 1, trigger: "budget" }]);
    const calls = gateway.provider.calls;
    expect(calls.map((call) => call.epoch)).toEqual([0, 0, 1]);
    expect(ids(calls[2]!.request)).toEqual([
      contextId("m2", contextB),
      "summary:0",
      runtimeId("m3"),
    ]);
    expect(textOf(calls[2]!.request.messages[1])).toContain("The user asked for one and two.");
    expect(textOf(calls[2]!.request.messages[1])).toMatch(/^<conversation_summary>/);
    // The next turn continues the new epoch as an exact prefix, without another context.
    await gateway.send(
      userMessage({ runId: "r4", messageId: "m4", text: "four", context: contextB }),
    );
    expectPrefixOf(calls[2]!.request, calls[3]!.request);
    expect(contextIds(calls[3]!.request)).toEqual([contextId("m2", contextB)]);
  });

  it("auto: a context the current turn brings stays in the current initial messages, after the summary", async () => {
    const { gateway } = await compactedOnThirdTurn(contextA);
    expect(ids(gateway.provider.calls[2]!.request)).toEqual([
      "summary:0",
      contextId("m3", contextA),
      runtimeId("m3"),
    ]);
  });

  it("auto during a tool-results continuation: the turn's messages and the open round stay whole", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    gateway.provider.script({ toolCalls: [{ name: "read_file", arguments: '{"path":"a"}' }] });
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextA }),
    );
    gateway.budgetTokens = 1;
    const continued = await gateway.send(
      toolResults({ runId: "r2", results: [{ callId: "call_1", output: "A" }] }),
    );
    expect(continued.outcome?.compactions).toEqual([{ epoch: 1, trigger: "budget" }]);
    const last = gateway.provider.calls.at(-1)!;
    expect(last.epoch).toBe(1);
    expect(ids(last.request)).toEqual([
      contextId("m1", contextA),
      "summary:0",
      runtimeId("m2"),
      "assistant:r2:0",
      "tool-result:call_1",
    ]);
  });

  it("manual: keeps only the summary, and the next user turn re-projects the context", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    gateway.summarizer.script({ text: "Summary of one." });
    const summarized = await gateway.send(summarize({ runId: "r2" }));
    expect(summarized.head.history.epoch).toBe(1);
    expect(summarized.head.history.messages.map((message) => message.id)).toEqual(["summary:0"]);
    expect(summarized.head.history.latestRequestContext()).toBeUndefined();
    await gateway.send(
      userMessage({ runId: "r3", messageId: "m3", text: "two", context: contextA }),
    );
    const after = gateway.provider.calls.at(-1)!;
    expect(after.epoch).toBe(1);
    expect(ids(after.request)).toEqual(["summary:0", contextId("m3", contextA), runtimeId("m3")]);
  });

  it("the summariser request has no tools and ends with a user message", async () => {
    const { gateway } = await compactedOnThirdTurn(contextB);
    const summarizerCall = gateway.summarizer.calls[0]!.request;
    expect(summarizerCall.tools).toEqual([]);
    expect(summarizerCall.instructions).toBe(summarizerInstructions);
    expect(summarizerCall.messages.at(-1)).toMatchObject({ role: "user" });
    const transcript = textOf(summarizerCall.messages.at(-1));
    // The kept context and the current turn are not summarised; the rest is.
    expect(transcript).toContain("<user_query>\none\n</user_query>");
    expect(transcript).toContain("<user_query>\ntwo\n</user_query>");
    expect(transcript).not.toContain("<user_query>\nthree\n</user_query>");
    expect(transcript).not.toContain(" M src/app.ts");
  });

  it("the conversation compactor builds exactly [latest context] + [summary] + [current] on a gateway head", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    const second = await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextA }),
    );
    expect(second.plan.next).toBe("call-model");
    const current = second.plan.next === "call-model" ? second.plan.currentInitialMessages : [];
    const compactCopy = async (reason: "auto" | "manual", kept: typeof current) => {
      const history = new HistoryLog({
        epoch: second.head.history.epoch,
        messages: second.head.history.messages,
      });
      const summarizer = new ScriptedProvider();
      summarizer.script({ text: "S" });
      await createConversationCompactor({
        provider: summarizer,
        conversationId: "c1",
        model: "m",
        persistEpoch: () => undefined,
      })({ reason, trigger: reason === "auto" ? "budget" : "manual", history, current: kept });
      return { ids: history.messages.map((message) => message.id), summarizer };
    };
    const auto = await compactCopy("auto", current);
    expect(auto.ids).toEqual([contextId("m1", contextA), "summary:0", runtimeId("m2")]);
    expect(auto.summarizer.calls[0]!.request.tools).toEqual([]);
    expect((await compactCopy("manual", [])).ids).toEqual(["summary:0"]);
  });
});
