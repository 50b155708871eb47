import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ContextOverflowError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RefusalError,
  RunCancelledError,
  createToolResultMessage,
} from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import type { FakeProvider } from "@cursor/testkit";
import { startFakeProvider } from "@cursor/testkit";
import { AgentConversation, collectAnswer } from "./__fixtures__/agent-turns.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";
import type { OpenAIChatAdapterOptions } from "./openai-chat-adapter.js";

// End to end: the adapter talks through the official SDK to the testkit's fake provider over
// real HTTP; the fake enforces the Chat wire rules and simulates OpenAI's prefix cache.
let fake: FakeProvider;
const fixedClock = () => Date.parse("2026-06-01T12:00:00Z");

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: fixedClock } });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

function adapter(options: OpenAIChatAdapterOptions = {}) {
  return createOpenAIChatAdapter({ apiKey: "sk-fake", baseURL: fake.openaiBaseURL, ...options });
}

function firstTurn(conversationId = "conv-e2e") {
  const conversation = new AgentConversation(conversationId);
  conversation.user("m1", "Where is the login form defined?");
  return conversation;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
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

describe("OpenAI Chat adapter given the serialised request", () => {
  it("sends that body instead of serialising again, byte for byte", async () => {
    const chat = adapter();
    const request = firstTurn("conv-serialized").request();
    fake.enqueue({ type: "text", text: "Here.", chunks: 1 });
    const serialized = chat.serialize(request);
    const given = watched(serialized.body);
    for await (const event of chat.stream(request, {
      serialized: { ...serialized, body: given.body },
    })) {
      expect(event.type).not.toBe("warning");
    }
    expect(given.reads()).toBeGreaterThan(0);
    expect(fake.requests.at(-1)!.body).toEqual(JSON.parse(JSON.stringify(serialized.body)));
  });
});

describe("openai-chat against the fake provider", () => {
  it("streams a text answer, sending exactly the serialised body", async () => {
    const chat = adapter();
    const request = firstTurn().request();
    fake.enqueue({ type: "text", text: "In src/login.tsx.", chunks: 3 });
    const answer = await collectAnswer(chat, request);
    expect(answer.events).toEqual([
      { type: "text-delta", text: "In src" },
      { type: "text-delta", text: "/login" },
      { type: "text-delta", text: ".tsx." },
      { type: "usage", usage: fake.requests[0]!.usage },
      { type: "finish", reason: "stop" },
    ]);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.path).toBe("/v1/chat/completions");
    expect(fake.requests[0]!.status).toBe(200);
    expect(fake.requests[0]!.body).toEqual(
      JSON.parse(JSON.stringify(chat.serialize(request).body)),
    );
  });

  it("assembles parallel tool calls, and the fake accepts the results on the next call", async () => {
    const chat = adapter();
    const conversation = firstTurn();
    fake.enqueue({
      type: "tool-calls",
      text: "Let me look.",
      calls: [
        { name: "read_file", arguments: '{"path":"src/login.tsx"}', callId: "call_read1" },
        { name: "grep", arguments: '{"pattern": "LoginForm"}', callId: "call_grep1" },
      ],
    });
    const round = await collectAnswer(chat, conversation.request());
    expect(round.text).toBe("Let me look.");
    expect(round.toolCalls).toEqual([
      { index: 0, callId: "call_read1", name: "read_file", arguments: '{"path":"src/login.tsx"}' },
      { index: 1, callId: "call_grep1", name: "grep", arguments: '{"pattern": "LoginForm"}' },
    ]);
    expect(round.finish).toBe("tool-calls");

    conversation.assistant(round, chat.id);
    conversation.push(
      createToolResultMessage({
        callId: "call_read1",
        name: "read_file",
        content: "export function LoginForm() {}",
      }),
      createToolResultMessage({ callId: "call_grep1", name: "grep", content: "src/login.tsx:1" }),
    );
    fake.enqueue({ type: "text", text: "It is in src/login.tsx." });
    const answer = await collectAnswer(chat, conversation.request());
    expect(answer.text).toBe("It is in src/login.tsx.");
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
    const sent = fake.requests[1]!.body as { messages: unknown[] };
    expect(sent.messages.slice(-3)).toEqual([
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          {
            id: "call_read1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"src/login.tsx"}' },
          },
          {
            id: "call_grep1",
            type: "function",
            function: { name: "grep", arguments: '{"pattern": "LoginForm"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_read1", content: "export function LoginForm() {}" },
      { role: "tool", tool_call_id: "call_grep1", content: "src/login.tsx:1" },
    ]);
  });

  it("gets cached tokens rising turn over turn, at the physical limit every time", async () => {
    const chat = adapter();
    const conversation = firstTurn("conv-cache");
    const cached: number[] = [];
    for (let turn = 1; turn <= 4; turn += 1) {
      if (turn > 1) {
        conversation.user(
          `m${turn}`,
          `Turn ${turn}: ${"please also check the session handling code paths. ".repeat(30)}`,
        );
      }
      fake.enqueue({ type: "text", text: `Answer ${turn}: ${"all good here. ".repeat(20)}` });
      const answer = await collectAnswer(chat, conversation.request());
      conversation.assistant(answer, chat.id);
      cached.push(answer.usage!.cachedInputTokens);
      const simulated = fake.requests.at(-1)!.cache!;
      expect(simulated.pureAppend).toBe(true);
      expect(answer.usage).toEqual({
        inputTokens: simulated.inputTokens,
        cachedInputTokens: simulated.cachedTokens,
        cacheWriteTokens: 0,
        outputTokens: answer.usage!.outputTokens,
      });
      expect(simulated.cachedTokens).toBe(simulated.bestPossibleCachedTokens);
    }
    expect(cached[0]).toBe(0);
    expect(cached).toMatchInlineSnapshot(`
      [
        0,
        3328,
        3712,
        3968,
      ]
    `);
    for (let turn = 1; turn < cached.length; turn += 1) {
      expect(cached[turn]!).toBeGreaterThan(cached[turn - 1]!);
    }
    expect(fake.cacheStats().total.prefixEfficiency).toBe(1);
  });

  it("replays reasoning_content on the next turn when enabled, and the server accepts it", async () => {
    const chat = adapter({ replayReasoningContent: true });
    const conversation = firstTurn("conv-reasoning");
    fake.enqueue({
      type: "reasoning",
      reasoning: "Search first.",
      then: { type: "text", text: "Found it." },
    });
    const answer = await collectAnswer(chat, conversation.request());
    conversation.assistant({ ...answer, replay: { reasoningContent: "Search first." } }, chat.id);
    conversation.user("m2", "Thanks. And the logout?");
    fake.enqueue({ type: "text", text: "src/logout.tsx." });
    await collectAnswer(chat, conversation.request());
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
    const sent = fake.requests[1]!.body as { messages: unknown[] };
    expect(sent.messages[2]).toEqual({
      role: "assistant",
      content: "Found it.",
      reasoning_content: "Search first.",
    });
    expect(fake.requests[1]!.cache!.pureAppend).toBe(true);
  });

  it("maps 429 to RateLimitError with the retry-after delay", async () => {
    fake.enqueue({ type: "error", status: 429, retryAfterSeconds: 7 });
    const error = await failure(collectAnswer(adapter(), firstTurn().request()));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      status: 429,
      retryAfterMs: 7000,
      retryable: true,
      providerId: "openai-chat",
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("maps 500 to ProviderServerError without retrying inside the SDK", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const error = await failure(collectAnswer(adapter(), firstTurn().request()));
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 500, retryable: true });
    expect(fake.requests).toHaveLength(1);
  });

  it("maps 401 to AuthenticationError", async () => {
    fake.enqueue({ type: "error", status: 401 });
    const error = await failure(collectAnswer(adapter(), firstTurn().request()));
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });

  it("turns a stream cut mid-answer into NetworkError after the deltas that arrived", async () => {
    const events: ProviderEvent[] = [];
    fake.enqueue({
      type: "cut",
      afterEvents: 3,
      reply: { type: "text", text: "A long answer that never ends.", chunks: 6 },
    });
    const run = async () => {
      for await (const event of adapter().stream(firstTurn().request())) events.push(event);
    };
    const error = await failure(run());
    expect(NetworkError.isInstance(error)).toBe(true);
    expect(events).toEqual([
      { type: "text-delta", text: "A lon" },
      { type: "text-delta", text: "g ans" },
    ]);
  });

  it("maps the API's context overflow refusal to ContextOverflowError", async () => {
    fake.enqueue({ type: "context-overflow" });
    const error = await failure(collectAnswer(adapter(), firstTurn().request()));
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, retryable: false });
  });

  it("maps a refusal to RefusalError", async () => {
    fake.enqueue({ type: "refusal", text: "I can't help with that." });
    const error = await failure(collectAnswer(adapter(), firstTurn().request()));
    expect(RefusalError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("the model refused: I can't help with that.");
  });

  it("stops with RunCancelledError when aborted mid-stream", async () => {
    fake.enqueue({
      type: "slow",
      delayMsPerEvent: 20,
      reply: { type: "text", text: "one two three four", chunks: 4 },
    });
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    const run = async () => {
      for await (const event of adapter().stream(firstTurn().request(), {
        signal: controller.signal,
      })) {
        events.push(event);
        if (event.type === "text-delta") controller.abort();
      }
    };
    const error = await failure(run());
    expect(RunCancelledError.isInstance(error)).toBe(true);
    expect(events).toHaveLength(1);
  });
});
