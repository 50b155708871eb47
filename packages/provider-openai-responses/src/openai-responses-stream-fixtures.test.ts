// Stream fixtures written from OpenAI's documented Responses event format, served verbatim by
// the @cursor/testkit fake provider over real HTTP and read by the adapter through the official
// SDK — and the native fake replies for the turns after them, whose reasoning the fake signs and
// verifies, so replayed items are checked like the real API checks them.
import { retryDelayMs } from "@cursor/run/internal";
import type { JsonValue, ModelRequest, ProviderEvent, ToolCall } from "@cursor/run";
import {
  HistoryLog,
  QuotaExceededError,
  createAssistantMessage,
  createPromptSpec,
  createRuntimeMessage,
  createToolResultMessage,
  defaultRetryPolicy,
  describeLoopError,
  toModelRequest,
} from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  cacheWriteEvents,
  phaseToolRoundEvents,
  quotaErrorEvents,
  quotaFailedEvents,
} from "./__fixtures__/openai-responses-stream-events.js";
import { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";
import type { OpenAIResponsesAdapterOptions } from "./openai-responses-adapter.js";
import type { OpenAIResponsesBody } from "./openai-responses-api.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const adapter = (options: OpenAIResponsesAdapterOptions = {}) =>
  createOpenAIResponsesAdapter({ apiKey: "sk-fake", baseURL: fake.openaiBaseURL, ...options });

const promptSpec = createPromptSpec({
  instructions: "You are a coding agent.",
  tools: [
    {
      name: "read_file",
      description: "Reads a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
    },
  ],
});

const userTurn = (id: string, text: string) =>
  createRuntimeMessage({
    eventId: `turn.${id}.0000000000000000`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });

const project = (log: HistoryLog, model = "gpt-5.3-codex"): ModelRequest =>
  toModelRequest({ conversationId: "conv-phase", model, promptSpec, messages: log.messages });

interface Turn {
  events: ProviderEvent[];
  text: string;
  toolCalls: ToolCall[];
  replay: Record<string, JsonValue>;
  error: unknown;
}

async function run(request: ModelRequest, options: OpenAIResponsesAdapterOptions = {}) {
  const turn: Turn = { events: [], text: "", toolCalls: [], replay: {}, error: undefined };
  try {
    for await (const event of adapter(options).stream(request)) {
      turn.events.push(event);
      if (event.type === "text-delta") turn.text += event.text;
      if (event.type === "tool-call") {
        const { type: _type, ...call } = event;
        turn.toolCalls.push(call);
      }
      if (event.type === "replay") turn.replay = { "openai-responses": event.state };
    }
  } catch (error) {
    turn.error = error;
  }
  return turn;
}

const store = (log: HistoryLog, turn: Turn, step: number) =>
  log.append(
    createAssistantMessage({
      runId: "run-phase",
      step,
      text: turn.text,
      toolCalls: turn.toolCalls,
      replay: turn.replay,
    }),
  );

const sentInput = (index: number) => (fake.requests[index]!.body as OpenAIResponsesBody).input;

describe("phase (gpt-5.3-codex and later)", () => {
  it("parses the documented events into one replay item per output item", async () => {
    fake.enqueue({ type: "stream", events: phaseToolRoundEvents });
    const log = new HistoryLog({ messages: [userTurn("m1", "fix a.ts")] });
    const turn = await run(project(log));
    expect(turn.error).toBeUndefined();
    expect(turn.text).toBe("I'll open src/a.ts first.\n\nThen the test.");
    store(log, turn, 0);
    log.append(
      createToolResultMessage({ callId: "call_fixture_1", name: "read_file", content: "x" }),
    );
    // The next body carries each item back on its own, with its phase.
    const next = adapter().serialize(project(log)).body.input;
    expect(next.slice(1)).toEqual([
      {
        type: "reasoning",
        id: "rs_fixture_1",
        summary: [{ type: "summary_text", text: "Read the file before editing it." }],
        encrypted_content: "gAAAAABfixture-encrypted-reasoning",
      },
      {
        type: "message",
        role: "assistant",
        content: "I'll open src/a.ts first.",
        phase: "commentary",
      },
      {
        type: "function_call",
        call_id: "call_fixture_1",
        name: "read_file",
        arguments: '{"path":"src/a.ts"}',
      },
      { type: "message", role: "assistant", content: "Then the test.", phase: "commentary" },
      { type: "function_call_output", call_id: "call_fixture_1", output: "x" },
    ]);
  });

  it("sends commentary and final answer back as separate items on every later turn", async () => {
    const log = new HistoryLog({ messages: [userTurn("m1", "fix a.ts")] });
    fake.enqueue({
      type: "reasoning",
      reasoning: "Read it first.",
      then: {
        type: "commentary",
        text: "Reading a.ts.",
        then: {
          type: "tool-calls",
          calls: [{ name: "read_file", arguments: '{"path":"a.ts"}', callId: "call_a" }],
        },
      },
    });
    store(log, await run(project(log)), 0);
    log.append(
      createToolResultMessage({ callId: "call_a", name: "read_file", content: "export {}" }),
    );
    fake.enqueue({
      type: "commentary",
      text: "It is empty.",
      then: { type: "text", text: "Nothing to fix.", phase: "final_answer" },
    });
    const second = await run(project(log));
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("It is empty.\n\nNothing to fix.");
    store(log, second, 1);
    log.append(userTurn("m2", "thanks"));
    fake.enqueue({ type: "text", text: "Welcome." });
    const third = await run(project(log));
    expect(third.error).toBeUndefined();
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200, 200]);
    const messages = sentInput(2).filter(
      (item) => item.type === "message" && item.role === "assistant",
    );
    expect(messages).toEqual([
      { type: "message", role: "assistant", content: "Reading a.ts.", phase: "commentary" },
      { type: "message", role: "assistant", content: "It is empty.", phase: "commentary" },
      { type: "message", role: "assistant", content: "Nothing to fix.", phase: "final_answer" },
    ]);
    // Append-only: the second request's input is an exact prefix of the third's.
    expect(sentInput(2).slice(0, sentInput(1).length)).toEqual(sentInput(1));
    expect(fake.requests[2]!.cache!.pureAppend).toBe(true);
  });
});

describe("quota exhausted", () => {
  it.each([
    ["response.failed", quotaFailedEvents],
    ["error event", quotaErrorEvents],
  ])("inside the stream (%s): a permanent QuotaExceededError", async (_name, events) => {
    fake.enqueue({ type: "stream", events });
    const { error } = await run(project(new HistoryLog({ messages: [userTurn("m1", "hi")] })));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    const quota = error as QuotaExceededError;
    expect(quota.retryable).toBe(false);
    expect(retryDelayMs({ error: quota, retry: 1, policy: defaultRetryPolicy })).toBeUndefined();
    expect(describeLoopError(quota)).toEqual({
      code: "provider_quota_exceeded",
      message: "You exceeded your current quota, please check your plan and billing details.",
      retryable: false,
    });
  });

  it("as an HTTP 429 insufficient_quota: permanent, not a rate limit", async () => {
    fake.enqueue({ type: "error", status: 429, code: "insufficient_quota", retryAfterSeconds: 1 });
    const { error } = await run(project(new HistoryLog({ messages: [userTurn("m1", "hi")] })));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryable: false });
  });
});

describe("cache writes (GPT-5.6 bills them at 1.25×)", () => {
  it("maps input_tokens_details.cache_write_tokens into usage", async () => {
    fake.enqueue({ type: "stream", events: cacheWriteEvents });
    const turn = await run(project(new HistoryLog({ messages: [userTurn("m1", "hi")] })));
    expect(turn.events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: {
        inputTokens: 2400,
        cachedInputTokens: 1920,
        cacheWriteTokens: 384,
        outputTokens: 90,
      },
    });
  });

  it("reports the simulation's writes turn over turn with prompt_cache_options", async () => {
    const long = "Keep every earlier byte. ".repeat(400);
    const log = new HistoryLog({ messages: [userTurn("m1", long)] });
    const options = { promptCacheOptions: { ttl: "30m" as const } };
    const first = await run(project(log, "gpt-5.6"), options);
    const usageOf = (turn: Turn) =>
      turn.events.flatMap((event) => (event.type === "usage" ? [event.usage] : []))[0]!;
    expect(usageOf(first).cacheWriteTokens).toBeGreaterThan(0);
    expect(usageOf(first)).toEqual(fake.requests[0]!.usage);
    expect((fake.requests[0]!.body as OpenAIResponsesBody).prompt_cache_options).toEqual({
      ttl: "30m",
    });
    store(log, first, 0);
    log.append(userTurn("m2", "and again"));
    const second = await run(project(log, "gpt-5.6"), options);
    expect(usageOf(second).cachedInputTokens).toBe(
      usageOf(first).cachedInputTokens + usageOf(first).cacheWriteTokens,
    );
    expect(usageOf(second)).toEqual(fake.requests[1]!.usage);
  });
});
