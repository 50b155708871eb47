import { compileRequestContext, createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { contextIds, expectPrefixOf, ids } from "./testing/prefix-assertions.js";
import { requestContext, toolResults, userMessage } from "./testing/requests.js";
import type { Mode } from "./testing/requests.js";
import { TestGateway } from "./testing/test-gateway.js";

const contextA = requestContext("");
const contextB = requestContext(" M src/app.ts");
const promptSpec = createCursorPromptSpec({
  modelDisplayName: "Test Model",
  mcpServers: contextA.mcp.servers,
});

function contextId(messageId: string, context: typeof contextA): string {
  return `request-context:ctx.${messageId}.${compileRequestContext(context)!.digest.slice(0, 16)}`;
}

const runtimeId = (messageId: string) =>
  expect.stringMatching(new RegExp(`^runtime:turn\\.${messageId}\\.[0-9a-f]{16}$`));

describe("prefix-stability", () => {
  it("two turns with identical context: the first request is an exact prefix of the second, with one context message", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "Explain main.ts", context: contextA }),
    );
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "Now add tests", context: contextA }),
    );
    const [first, second] = gateway.provider.calls.map((call) => call.request);
    expect(ids(first!)).toEqual([contextId("m1", contextA), runtimeId("m1")]);
    expect(ids(second!)).toEqual([
      contextId("m1", contextA),
      runtimeId("m1"),
      "assistant:r1:0",
      runtimeId("m2"),
    ]);
    expectPrefixOf(first!, second!);
    expect(contextIds(second!)).toEqual([contextId("m1", contextA)]);
  });

  it("changed context: one new context message at the tail, right before the new runtime message", async () => {
    const gateway = new TestGateway({ promptSpec });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "one", context: contextA }),
    );
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "two", context: contextB }),
    );
    const [first, second] = gateway.provider.calls.map((call) => call.request);
    expectPrefixOf(first!, second!);
    expect(ids(second!)).toEqual([
      contextId("m1", contextA),
      runtimeId("m1"),
      "assistant:r1:0",
      contextId("m2", contextB),
      runtimeId("m2"),
    ]);
  });

  it("A → B → A keeps three context events in order", async () => {
    const gateway = new TestGateway({ promptSpec });
    const contexts = [contextA, contextB, contextA];
    for (const [index, context] of contexts.entries()) {
      await gateway.send(
        userMessage({ runId: `r${index}`, messageId: `m${index}`, text: `q${index}`, context }),
      );
    }
    const requests = gateway.provider.calls.map((call) => call.request);
    expectPrefixOf(requests[0]!, requests[1]!);
    expectPrefixOf(requests[1]!, requests[2]!);
    expect(contextIds(requests[2]!)).toEqual([
      contextId("m0", contextA),
      contextId("m1", contextB),
      contextId("m2", contextA),
    ]);
  });

  it("a tool round followed by a user turn keeps the round intact", async () => {
    const gateway = new TestGateway({ promptSpec });
    gateway.provider.script(
      { toolCalls: [{ name: "read_file", arguments: '{"path":"src/main.ts"}' }] },
      { text: "main.ts starts the server." },
    );
    const first = await gateway.send(
      userMessage({
        runId: "r1",
        messageId: "m1",
        text: "What does main.ts do?",
        context: contextA,
      }),
    );
    expect(first.outcome?.reason).toBe("awaiting-tools");
    const results = await gateway.send(
      toolResults({ runId: "r1", results: [{ callId: "call_1", output: "listen(8080)" }] }),
    );
    expect(results.outcome?.reason).toBe("completed");
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "Thanks", context: contextA }),
    );
    const requests = gateway.provider.calls.map((call) => call.request);
    expect(requests).toHaveLength(3);
    expectPrefixOf(requests[0]!, requests[1]!);
    expectPrefixOf(requests[1]!, requests[2]!);
    expect(ids(requests[2]!)).toEqual([
      contextId("m1", contextA),
      runtimeId("m1"),
      "assistant:r1:0",
      "tool-result:call_1",
      "assistant:r1:1",
      runtimeId("m2"),
    ]);
    expect(requests[2]!.messages[2]).toMatchObject({
      role: "assistant",
      toolCalls: [
        { index: 0, callId: "call_1", name: "read_file", arguments: '{"path":"src/main.ts"}' },
      ],
    });
  });

  it("mode switches keep instructions and tools and only change the allowed tools", async () => {
    const gateway = new TestGateway({ promptSpec });
    const modes: Mode[] = ["agent", "ask", "plan", "debug", "agent"];
    for (const [index, mode] of modes.entries()) {
      await gateway.send(
        userMessage({
          runId: `r${index}`,
          messageId: `m${index}`,
          text: `q${index}`,
          mode,
          context: contextA,
        }),
      );
    }
    const requests = gateway.provider.calls.map((call) => call.request);
    for (let index = 1; index < requests.length; index += 1) {
      expectPrefixOf(requests[index - 1]!, requests[index]!);
    }
    expect(contextIds(requests.at(-1)!)).toHaveLength(1);
    expect(requests[1]!.allowedTools).not.toEqual(requests[0]!.allowedTools);
    expect(requests[4]!.allowedTools).toEqual(requests[0]!.allowedTools);
    expect(requests[0]!.allowedTools).toContain("mcp__db__query");
    expect(requests[1]!.allowedTools).not.toContain("mcp__db__query");
  });
});
