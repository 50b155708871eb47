import type {
  CanonicalMessage,
  JsonValue,
  ModelRequest,
  ProviderEvent,
  ToolCall,
} from "@cursor/run";
import {
  AuthenticationError,
  ContextOverflowError,
  HistoryLog,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RefusalError,
  RunCancelledError,
  createAssistantMessage,
  createPromptSpec,
  createRuntimeMessage,
  createToolResultMessage,
  toModelRequest,
} from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";

// End to end: adapter → official SDK → real HTTP → the testkit fake provider, which answers in
// the Responses wire format, verifies replayed reasoning and simulates OpenAI's prefix cache.

let fake: FakeProvider;
const clock = { now: Date.parse("2026-01-01T00:00:00Z") };

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => clock.now } });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

function adapter() {
  return createOpenAIResponsesAdapter({ apiKey: "sk-fake", baseURL: fake.openaiBaseURL });
}

// Long enough (> 1024 tokens) for OpenAI-style prefix caching to apply.
const instructions = Array.from(
  { length: 160 },
  (_, i) => `Rule ${i + 1}: keep every earlier message byte for byte.`,
).join("\n");

const promptSpec = createPromptSpec({
  instructions,
  tools: [
    {
      name: "read_file",
      description: "Reads a file.",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" } },
        required: ["path"],
        additionalProperties: false,
      },
    },
    {
      name: "grep",
      description: "Searches files.",
      inputSchema: { type: "object", properties: { pattern: { type: "string" } } },
    },
  ],
});

interface Turn {
  readonly events: ProviderEvent[];
  readonly text: string;
  readonly reasoning: string;
  readonly toolCalls: ToolCall[];
  readonly replay: Record<string, JsonValue>;
}

async function run(request: ModelRequest, signal?: AbortSignal): Promise<Turn> {
  const events: ProviderEvent[] = [];
  for await (const event of adapter().stream(request, signal === undefined ? {} : { signal })) {
    events.push(event);
  }
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  const replay: Record<string, JsonValue> = {};
  for (const event of events) {
    if (event.type === "text-delta") text += event.text;
    if (event.type === "reasoning-delta") reasoning += event.text;
    if (event.type === "tool-call") {
      toolCalls.push({
        index: event.index,
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
      });
    }
    if (event.type === "replay") replay["openai-responses"] = event.state;
  }
  return { events, text, reasoning, toolCalls, replay };
}

async function failure(request: ModelRequest, signal?: AbortSignal): Promise<unknown> {
  try {
    await run(request, signal);
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

function userTurn(id: string, text: string): CanonicalMessage {
  return createRuntimeMessage({
    eventId: `turn.${id}.0000000000000000`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });
}

function project(log: HistoryLog, allowedTools?: readonly string[]): ModelRequest {
  return toModelRequest({
    conversationId: "conv-e2e",
    model: "gpt-5",
    promptSpec,
    messages: log.messages,
    ...(allowedTools === undefined ? {} : { allowedTools }),
  });
}

function appendAssistant(log: HistoryLog, step: number, turn: Turn): void {
  log.append(
    createAssistantMessage({
      runId: "run-e2e",
      step,
      text: turn.text,
      reasoning: turn.reasoning,
      toolCalls: turn.toolCalls,
      replay: turn.replay,
    }),
  );
}

function usageOf(turn: Turn) {
  const usage = turn.events.find((event) => event.type === "usage");
  return usage?.type === "usage" ? usage.usage : undefined;
}

/** `body` behind a proxy that counts its property reads: a body that is sent gets read. */
function watched<T extends object>(body: T): { body: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(body, {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { body: proxy, reads: () => reads };
}

describe("OpenAI Responses adapter given the serialised request", () => {
  it("sends that body instead of serialising again, byte for byte", async () => {
    fake.enqueue({ type: "text", text: "Hi.", chunks: 1 });
    const request = project(new HistoryLog({ messages: [userTurn("t1", "Say hi.")] }));
    const serialized = adapter().serialize(request);
    const given = watched(serialized.body);
    for await (const event of adapter().stream(request, {
      serialized: { ...serialized, body: given.body },
    })) {
      expect(event.type).not.toBe("warning");
    }
    expect(given.reads()).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toBe(JSON.stringify(serialized.body));
  });
});

describe("OpenAI Responses adapter against the fake provider", () => {
  it("streams a text answer and sends exactly the serialised body", async () => {
    fake.enqueue({ type: "text", text: "Hello there, coder.", chunks: 3 });
    const log = new HistoryLog({ messages: [userTurn("t1", "Say hello.")] });
    const request = project(log);
    const turn = await run(request);
    expect(turn.events.filter((event) => event.type === "text-delta")).toHaveLength(3);
    expect(turn.text).toBe("Hello there, coder.");
    expect(turn.events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    expect(fake.requests).toHaveLength(1);
    const recorded = fake.requests[0]!;
    expect(recorded.path).toBe("/v1/responses");
    expect(recorded.stream).toBe(true);
    expect(JSON.stringify(recorded.body)).toBe(JSON.stringify(adapter().serialize(request).body));
  });

  it("streams parallel tool calls with their exact arguments", async () => {
    fake.enqueue({
      type: "tool-calls",
      text: "Checking two files.",
      calls: [
        { name: "read_file", arguments: '{"path": "a.ts"}', callId: "call_A" },
        { name: "grep", arguments: '{"pattern":"TODO"}', callId: "call_B" },
      ],
    });
    const turn = await run(project(new HistoryLog({ messages: [userTurn("t1", "Look.")] })));
    expect(turn.text).toBe("Checking two files.");
    expect(turn.toolCalls).toEqual([
      { index: 0, callId: "call_A", name: "read_file", arguments: '{"path": "a.ts"}' },
      { index: 1, callId: "call_B", name: "grep", arguments: '{"pattern":"TODO"}' },
    ]);
    expect(turn.events.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
  });

  it("replays encrypted reasoning that the provider accepts on the next call", async () => {
    fake.enqueue({
      type: "reasoning",
      reasoning: "The test file will say what is expected.",
      then: {
        type: "tool-calls",
        calls: [{ name: "read_file", arguments: '{"path":"a.test.ts"}' }],
      },
    });
    const log = new HistoryLog({ messages: [userTurn("t1", "Why does the test fail?")] });
    const first = await run(project(log));
    expect(first.reasoning).toBe("The test file will say what is expected.");
    const replayed = first.replay["openai-responses"];
    expect(replayed).toEqual({
      items: [
        {
          type: "reasoning",
          id: expect.stringMatching(/^rs_/),
          summary: [{ type: "summary_text", text: "The test file will say what is expected." }],
          encrypted_content: expect.stringMatching(/^enc_/),
        },
        { type: "function_call", call_id: first.toolCalls[0]!.callId },
      ],
    });
    appendAssistant(log, 0, first);
    log.append(
      createToolResultMessage({
        callId: first.toolCalls[0]!.callId,
        name: "read_file",
        content: "expect(add(1, 1)).toBe(2)",
      }),
    );
    fake.enqueue({ type: "text", text: "add() is off by one." });
    const second = await run(project(log));
    expect(second.text).toBe("add() is off by one.");
    const sent = fake.requests[1]!;
    expect(sent.status).toBe(200);
    const input = (sent.body as { input: unknown[] }).input;
    expect(input.slice(1, 3)).toEqual([
      (replayed as { items: unknown[] }).items[0],
      {
        type: "function_call",
        call_id: first.toolCalls[0]!.callId,
        name: "read_file",
        arguments: '{"path":"a.test.ts"}',
      },
    ]);
  });

  it("is refused when replayed reasoning was altered (the fake verifies it)", async () => {
    fake.enqueue({ type: "reasoning", reasoning: "plan", then: { type: "text", text: "done" } });
    const log = new HistoryLog({ messages: [userTurn("t1", "Go.")] });
    const first = await run(project(log));
    const state = first.replay["openai-responses"] as {
      items: { type: string; encrypted_content?: string }[];
    };
    const tampered = {
      items: state.items.map((item) =>
        item.type === "reasoning"
          ? { ...item, encrypted_content: `${item.encrypted_content}x` }
          : item,
      ),
    };
    appendAssistant(log, 0, { ...first, replay: { "openai-responses": tampered } });
    log.append(userTurn("t2", "Again."));
    const error = await failure(project(log));
    expect(InvalidRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400 });
  });

  it("reports cached tokens rising turn over turn on an append-only conversation", async () => {
    const log = new HistoryLog();
    const cached: number[] = [];
    for (let turnIndex = 0; turnIndex < 4; turnIndex += 1) {
      log.append(
        userTurn(
          `t${turnIndex}`,
          Array.from(
            { length: 40 },
            (_, i) => `Question ${turnIndex}.${i}: what does line ${i} do?`,
          ).join(" "),
        ),
      );
      fake.enqueue({ type: "text", text: `Answer ${turnIndex}: it adds two numbers.` });
      // Mode switches change only tool_choice, which is not part of the cached prefix.
      const turn = await run(project(log, turnIndex % 2 === 0 ? undefined : ["read_file"]));
      appendAssistant(log, turnIndex, turn);
      cached.push(usageOf(turn)?.cachedInputTokens ?? -1);
      clock.now += 1000;
    }
    expect(cached[0]).toBe(0);
    for (let i = 1; i < cached.length; i += 1) {
      expect(cached[i]).toBeGreaterThan(cached[i - 1]!);
      expect(cached[i]).toBe(fake.requests[i]!.cache?.bestPossibleCachedTokens);
    }
    expect(fake.requests.map((request) => request.cache?.pureAppend)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(fake.cacheStats().total.prefixEfficiency).toBe(1);
  });

  it("reports 429 as RateLimitError with the retry-after", async () => {
    fake.enqueue({ type: "error", status: 429, retryAfterSeconds: 2 });
    const error = await failure(project(new HistoryLog({ messages: [userTurn("t1", "Hi")] })));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 2000, retryable: true });
    expect(fake.requests).toHaveLength(1);
  });

  it("reports 500 as a retryable ProviderServerError", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const error = await failure(project(new HistoryLog({ messages: [userTurn("t1", "Hi")] })));
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 500, retryable: true });
  });

  it("reports 401 as AuthenticationError", async () => {
    fake.enqueue({ type: "error", status: 401 });
    const error = await failure(project(new HistoryLog({ messages: [userTurn("t1", "Hi")] })));
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });

  it("reports a stream cut mid-answer as NetworkError after the deltas that arrived", async () => {
    // created, in_progress, item added, part added, then 2 of 4 text deltas.
    fake.enqueue({
      type: "cut",
      afterEvents: 6,
      reply: { type: "text", text: "one two three four", chunks: 4 },
    });
    const seen: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter().stream(
        project(new HistoryLog({ messages: [userTurn("t1", "Count.")] })),
      )) {
        seen.push(event);
      }
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([
      { type: "text-delta", text: "one t" },
      { type: "text-delta", text: "wo th" },
    ]);
    expect(NetworkError.isInstance(caught)).toBe(true);
  });

  it("reports the provider's context overflow refusal as ContextOverflowError", async () => {
    fake.enqueue({ type: "context-overflow" });
    const error = await failure(project(new HistoryLog({ messages: [userTurn("t1", "Hi")] })));
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, retryable: false });
  });

  it("reports a safety refusal as RefusalError", async () => {
    fake.enqueue({ type: "refusal", text: "I can't help with that." });
    const error = await failure(project(new HistoryLog({ messages: [userTurn("t1", "Hi")] })));
    expect(RefusalError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ message: "I can't help with that." });
  });

  it("stops with RunCancelledError when the signal aborts mid-stream", async () => {
    fake.enqueue({
      type: "slow",
      delayMsPerEvent: 20,
      reply: { type: "text", text: "a long and slow answer", chunks: 10 },
    });
    const controller = new AbortController();
    const seen: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter().stream(
        project(new HistoryLog({ messages: [userTurn("t1", "Talk.")] })),
        { signal: controller.signal },
      )) {
        seen.push(event);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(seen).toHaveLength(1);
    expect(RunCancelledError.isInstance(caught)).toBe(true);
  });
});
