import { describe, expect, it } from "vitest";
import { HistoryLog } from "./history-log.js";
import {
  createAssistantMessage,
  createRuntimeMessage,
  createToolResultMessage,
} from "./message-builders.js";
import { createPromptSpec } from "./prompt-spec.js";
import { toModelRequest } from "./to-model-request.js";
import { truncateToolResult } from "./truncate-tool-result.js";

const promptSpec = createPromptSpec({
  instructions: "You are a coding agent.",
  tools: [
    {
      name: "read",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
});
const runtime = createRuntimeMessage({
  eventId: "turn.m1.x",
  runtimeKind: "user-turn",
  content: [{ type: "text", text: "go" }],
});
const assistant = createAssistantMessage({
  runId: "r1",
  step: 0,
  toolCalls: [
    { index: 1, callId: "c2", name: "read", arguments: "{}" },
    { index: 0, callId: "c1", name: "read", arguments: "{}" },
  ],
});

describe("toModelRequest", () => {
  it("groups a tool round with calls and results in index order, whatever the commit order", () => {
    const log = new HistoryLog({
      messages: [
        runtime,
        assistant,
        createToolResultMessage({ callId: "c2", name: "read", content: "two" }),
        createToolResultMessage({ callId: "c1", name: "read", content: "one" }),
      ],
    });
    const request = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: log.messages,
    });
    expect(request.messages.map((m) => m.id)).toEqual([
      "runtime:turn.m1.x",
      "assistant:r1:0",
      "tool-result:c1",
      "tool-result:c2",
    ]);
    const projectedAssistant = request.messages[1];
    expect(
      projectedAssistant?.role === "assistant" && projectedAssistant.toolCalls.map((c) => c.callId),
    ).toEqual(["c1", "c2"]);
  });

  it("adds a transient user tail after a final assistant message without persisting it", () => {
    const final = createAssistantMessage({ runId: "r1", step: 0, text: "done" });
    const log = new HistoryLog({ messages: [runtime, final] });
    const request = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: log.messages,
      userTailText: "Go on.",
    });
    expect(request.messages.at(-1)).toEqual({
      role: "user",
      id: "tail",
      source: "tail",
      content: [{ type: "text", text: "Go on." }],
    });
    expect(log.length).toBe(2);
  });

  it("returns a deeply frozen request, the same for the same history", () => {
    const log = new HistoryLog({ messages: [runtime] });
    const a = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: log.messages,
    });
    const b = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: log.messages,
    });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(Object.isFrozen(a.messages)).toBe(true);
    expect(Object.isFrozen(a.messages[0])).toBe(true);
    expect(Object.isFrozen(a.tools[0]?.inputSchema)).toBe(true);
  });

  it("projects a message once per conversation and shares an ordered frozen call list", () => {
    const ordered = createAssistantMessage({
      runId: "r2",
      step: 0,
      toolCalls: [{ index: 0, callId: "c3", name: "read", arguments: "{}" }],
    });
    const log = new HistoryLog({
      messages: [
        runtime,
        ordered,
        createToolResultMessage({ callId: "c3", name: "read", content: "three" }),
      ],
    });
    const project = () =>
      toModelRequest({ conversationId: "c", model: "m", promptSpec, messages: log.messages });
    const first = project();
    log.append(createAssistantMessage({ runId: "r2", step: 1, text: "done" }));
    const second = project();
    first.messages.forEach((message, index) => expect(second.messages[index]).toBe(message));
    const projected = second.messages[1];
    const canonical = log.messages[1];
    // Already in index order: the canonical message's own frozen list, not a copy.
    expect(projected?.role === "assistant" && canonical?.kind === "assistant").toBe(true);
    expect((projected as { toolCalls: unknown }).toolCalls).toBe(
      (canonical as { toolCalls: unknown }).toolCalls,
    );
  });

  it("uses a frozen answer or untruncated result as its own projection, copies one that differs", () => {
    const ordered = createAssistantMessage({
      runId: "r3",
      step: 0,
      toolCalls: [
        { index: 0, callId: "c4", name: "read", arguments: "{}" },
        { index: 1, callId: "c5", name: "read", arguments: "{}" },
      ],
    });
    const short = createToolResultMessage({ callId: "c4", name: "read", content: "four" });
    const long = createToolResultMessage({ callId: "c5", name: "read", content: "x".repeat(50) });
    const log = new HistoryLog({
      messages: [
        runtime,
        assistant,
        createToolResultMessage({ callId: "c1", name: "read", content: "one" }),
        createToolResultMessage({ callId: "c2", name: "read", content: "two" }),
        ordered,
        short,
        long,
      ],
    });
    const request = toModelRequest({
      conversationId: "c",
      model: "m",
      promptSpec,
      messages: log.messages,
      maxToolResultChars: 20,
    });
    const projected = (id: string) => request.messages.find((message) => message.id === id);
    const stored = (id: string) => log.messages.find((message) => message.id === id);
    // Calls already in index order, a result within the limit: the canonical message itself.
    expect(projected(ordered.id)).toBe(stored(ordered.id));
    expect(projected(short.id)).toBe(stored(short.id));
    // Calls out of index order: a projection of its own, calls sorted.
    const reordered = projected(assistant.id);
    expect(reordered).not.toBe(stored(assistant.id));
    expect(reordered?.role === "assistant" && reordered.toolCalls.map((c) => c.callId)).toEqual([
      "c1",
      "c2",
    ]);
    // A result over the limit: a copy, cut; the stored message keeps its whole content.
    const cut = projected(long.id);
    expect(cut).not.toBe(stored(long.id));
    expect(cut?.role === "tool" && cut.content).toBe(truncateToolResult("x".repeat(50), 20));
    expect(stored(long.id)?.kind === "tool-result" && stored(long.id)).toMatchObject({
      content: "x".repeat(50),
    });
  });
});

describe("truncateToolResult", () => {
  it("leaves a result at the limit untouched and cuts one over it deterministically", () => {
    expect(truncateToolResult("x".repeat(100), 100)).toBe("x".repeat(100));
    const long = "a".repeat(150) + "b".repeat(150);
    const cut = truncateToolResult(long, 100);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut).toBe(truncateToolResult(long, 100));
    expect(cut.startsWith("a")).toBe(true);
    expect(cut.endsWith("b")).toBe(true);
    expect(cut).toContain("characters omitted");
  });
});
