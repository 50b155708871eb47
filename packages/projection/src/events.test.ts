import { createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { RunIdMismatchError, ToolResultConflictError } from "./projection-errors.js";
import { contextIds, expectPrefixOf, ids } from "./testing/prefix-assertions.js";
import {
  backgroundCompletion,
  injectContext,
  requestContext,
  toolResults,
  userMessage,
} from "./testing/requests.js";
import { TestGateway } from "./testing/test-gateway.js";

const contextA = requestContext("");
const contextB = requestContext(" M src/app.ts");
const promptSpec = createCursorPromptSpec({ modelDisplayName: "Test Model" });

async function startedGateway(): Promise<TestGateway> {
  const gateway = new TestGateway({ promptSpec });
  await gateway.send(
    userMessage({ runId: "r1", messageId: "m1", text: "build it", context: contextA }),
  );
  return gateway;
}

function countMatching(messages: readonly { id: string }[], pattern: RegExp): number {
  return messages.filter((message) => pattern.test(message.id)).length;
}

describe("events", () => {
  it("a retried user turn persists once and calls no provider when its run completed", async () => {
    const gateway = await startedGateway();
    const retry = await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "build it", context: contextA }),
    );
    expect(retry.plan).toMatchObject({ retry: true, next: "done" });
    expect(countMatching(retry.head.history.messages, /^runtime:turn\.m1\./)).toBe(1);
    expect(countMatching(retry.head.history.messages, /^request-context:/)).toBe(1);
    expect(retry.head.turns).toHaveLength(1);
    expect(gateway.provider.calls).toHaveLength(1);
  });

  it("a retried background completion persists once and calls no provider", async () => {
    const gateway = await startedGateway();
    const completion = { taskId: "t1", kind: "shell" as const, title: "npm run build" };
    const first = await gateway.send(
      backgroundCompletion({ runId: "r2", completions: [completion] }),
    );
    expect(first.plan.appended.map((message) => message.id)).toEqual(["runtime:bg.shell.t1.-"]);
    const again = await gateway.send(
      backgroundCompletion({ runId: "r3", completions: [completion] }),
    );
    expect(again.plan).toMatchObject({ next: "done", appended: [] });
    expect(countMatching(again.head.history.messages, /^runtime:bg\./)).toBe(1);
    expect(gateway.provider.calls).toHaveLength(2);
    const mixed = await gateway.send(
      backgroundCompletion({
        runId: "r4",
        completions: [completion, { taskId: "t2", kind: "subagent", toolCallId: "call_7" }],
      }),
    );
    expect(mixed.plan.appended.map((message) => message.id)).toEqual([
      "runtime:bg.subagent.t2.call_7",
    ]);
    expect(gateway.provider.calls).toHaveLength(3);
  });

  it("background completions never create context, even when the request carries a changed one", async () => {
    const gateway = await startedGateway();
    await gateway.send(
      backgroundCompletion({
        runId: "r2",
        completions: [{ taskId: "t1", kind: "shell", status: "error" }],
        context: contextB,
      }),
    );
    const [before, after] = gateway.provider.calls.map((call) => call.request);
    expectPrefixOf(before!, after!);
    expect(contextIds(after!)).toEqual(contextIds(before!));
    expect(ids(after!).slice(ids(before!).length)).toEqual([
      "assistant:r1:0",
      "runtime:bg.shell.t1.-",
    ]);
    expect(after!.messages.at(-1)).toMatchObject({ role: "user", source: "runtime" });
  });

  it("injections never create context and a repeated injection id is ignored", async () => {
    const gateway = await startedGateway();
    const injection = injectContext({
      runId: "r2",
      injectionId: "lint-1",
      expectedRunId: "r1",
      text: "The linter found 2 problems.",
      context: contextB,
    });
    const first = await gateway.send(injection);
    expect(first.plan.appended.map((message) => message.id)).toEqual(["runtime:inject.lint-1"]);
    const [before, after] = gateway.provider.calls.map((call) => call.request);
    expectPrefixOf(before!, after!);
    expect(contextIds(after!)).toEqual(contextIds(before!));
    const repeated = await gateway.send(injection);
    expect(repeated.plan).toMatchObject({ next: "done", appended: [] });
    expect(countMatching(repeated.head.history.messages, /^runtime:inject\./)).toBe(1);
    expect(gateway.provider.calls).toHaveLength(2);
  });

  it("an injection naming a stale run is a conflict and changes nothing", async () => {
    const gateway = await startedGateway();
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "more", context: contextA }),
    );
    const digest = gateway.head("c1")!.history.headDigest;
    await expect(
      gateway.send(
        injectContext({ runId: "r3", injectionId: "i1", expectedRunId: "r1", text: "x" }),
      ),
    ).rejects.toSatisfy((error: unknown) => RunIdMismatchError.isInstance(error));
    expect(gateway.head("c1")!.history.headDigest).toBe(digest);
  });

  it("tool results for unknown calls are a conflict; the model runs once all results are in", async () => {
    const gateway = new TestGateway({ promptSpec });
    gateway.provider.script({
      toolCalls: [
        { name: "read_file", arguments: '{"path":"a"}' },
        { name: "read_file", arguments: '{"path":"b"}' },
      ],
    });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "read a and b", context: contextA }),
    );
    await expect(
      gateway.send(toolResults({ runId: "r1", results: [{ callId: "call_9", output: "?" }] })),
    ).rejects.toSatisfy((error: unknown) => ToolResultConflictError.isInstance(error));
    const partial = await gateway.send(
      toolResults({ runId: "r1", results: [{ callId: "call_2", output: "B" }] }),
    );
    expect(partial.plan.next).toBe("await-tools");
    expect(
      partial.plan.next === "await-tools" && partial.plan.pendingToolCalls.map((c) => c.callId),
    ).toEqual(["call_1"]);
    expect(gateway.provider.calls).toHaveLength(1);
    const rest = await gateway.send(
      toolResults({
        runId: "r1",
        results: [
          { callId: "call_1", output: "A" },
          { callId: "call_2", output: "B" },
        ],
      }),
    );
    expect(rest.plan.appended.map((message) => message.id)).toEqual(["tool-result:call_1"]);
    expect(gateway.provider.calls).toHaveLength(2);
    expect(ids(gateway.provider.calls[1]!.request).slice(2)).toEqual([
      "assistant:r1:0",
      "tool-result:call_1",
      "tool-result:call_2",
    ]);
  });

  it("a new turn after an abandoned tool round closes the open calls deterministically", async () => {
    const gateway = new TestGateway({ promptSpec });
    gateway.provider.script({ toolCalls: [{ name: "shell", arguments: '{"command":"ls"}' }] });
    await gateway.send(
      userMessage({ runId: "r1", messageId: "m1", text: "list files", context: contextA }),
    );
    await gateway.send(
      userMessage({ runId: "r2", messageId: "m2", text: "never mind", context: contextA }),
    );
    const [before, after] = gateway.provider.calls.map((call) => call.request);
    expectPrefixOf(before!, after!);
    expect(ids(after!).slice(2)).toEqual([
      "assistant:r1:0",
      "tool-result:call_1",
      expect.stringMatching(/^runtime:turn\.m2\./),
    ]);
    expect(after!.messages[3]).toMatchObject({ role: "tool", isError: true });
  });
});
