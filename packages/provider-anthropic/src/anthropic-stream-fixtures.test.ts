// Stream fixtures written from Anthropic's documented event format, served by the @cursor/testkit
// fake provider over real HTTP and read through the official SDK by the adapter; then the turns
// after them, so what gets stored from each reply is sent back in a body the (strict) fake takes.
import { retryDelayMs } from "@cursor/run/internal";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startFakeProvider, stripCacheControl } from "@cursor/testkit";
import type { FakeProvider, FakeReply } from "@cursor/testkit";
import {
  QuotaExceededError,
  createAssistantMessage,
  createRuntimeMessage,
  createToolResultMessage,
  describeLoopError,
  defaultRetryPolicy,
  toModelRequest,
} from "@cursor/run";
import type { CanonicalMessage, JsonValue, ModelRequest, ProviderEvent } from "@cursor/run";
import { promptSpec } from "./__fixtures__/conversation.js";
import {
  billingErrorEvents,
  cacheWriteEvents,
  thinkingOnlyEvents,
} from "./__fixtures__/anthropic-stream-events.js";
import { createAnthropicAdapter } from "./anthropic-adapter.js";
import type { AnthropicAdapterOptions } from "./anthropic-adapter.js";
import type { AnthropicBody, AnthropicContentBlock } from "./anthropic-api.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({
    cache: { clock: () => 1_800_000_000_000, anthropicMinTokens: 1 },
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const adapter = (options: AnthropicAdapterOptions = {}) =>
  createAnthropicAdapter({ apiKey: "sk-ant-test", baseURL: fake.anthropicBaseURL, ...options });

const userTurn = (id: string, text: string) =>
  createRuntimeMessage({
    eventId: `turn.${id}.0000000000000000`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });

const requestFor = (messages: CanonicalMessage[]): ModelRequest =>
  toModelRequest({
    conversationId: "conv-fixtures",
    model: "claude-sonnet-4-6",
    promptSpec,
    messages,
  });

async function collect(request: ModelRequest, options: AnthropicAdapterOptions = {}) {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of adapter(options).stream(request)) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** The assistant message the model loop would store from these events. */
function storedFrom(events: readonly ProviderEvent[], step: number) {
  let text = "";
  let reasoning = "";
  let replay: Record<string, JsonValue> = {};
  for (const event of events) {
    if (event.type === "text-delta") text += event.text;
    if (event.type === "reasoning-delta") reasoning += event.text;
    if (event.type === "replay") replay = { anthropic: event.state };
  }
  return createAssistantMessage({ runId: "run-f", step, text, reasoning, replay });
}

const lastBody = () => fake.requests.at(-1)!.body as AnthropicBody;

describe("thinking-only reply (stop_reason max_tokens)", () => {
  it("streams the thinking, its signed block as replay state, and finishes `length`", async () => {
    fake.enqueue({ type: "stream", events: thinkingOnlyEvents });
    const { events, error } = await collect(requestFor([userTurn("m1", "refactor everything")]));
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === "text-delta")).toEqual([]);
    expect(events.find((event) => event.type === "replay")).toEqual({
      type: "replay",
      state: {
        blocks: [
          {
            type: "thinking",
            thinking: "The user wants a refactor of every module, so first I list the modules and",
            signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
          },
        ],
      },
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "length" });
  });

  it("is left out of every later body, which the API's block rules then accept", async () => {
    const thinking = { budgetTokens: 1024 };
    fake.enqueue({ type: "stream", events: thinkingOnlyEvents });
    const history: CanonicalMessage[] = [userTurn("m1", "refactor everything")];
    const first = await collect(requestFor(history), { thinking });
    history.push(storedFrom(first.events, 0), userTurn("m2", "go on, one module at a time"));

    fake.enqueue({ type: "text", text: "Starting with a.ts." });
    const second = await collect(requestFor(history), { thinking });
    expect(second.error).toBeUndefined();
    expect(fake.requests.at(-1)!.status).toBe(200);
    expect(lastBody().messages.map((message) => message.role)).toEqual(["user"]);
    // Byte-stable: a later body repeats this one's blocks exactly (markers aside), and a store
    // round trip of the thinking-only message (JSON, as checkpoints do) changes nothing.
    const third = [...history, storedFrom(second.events, 1), userTurn("m3", "next")];
    const blocks = (messages: CanonicalMessage[]) =>
      stripCacheControl(
        adapter({ thinking }).serialize(requestFor(messages)).body.messages,
      ).flatMap((message): AnthropicContentBlock[] => message.content);
    const now = blocks(history);
    expect(blocks(third).slice(0, now.length)).toEqual(now);
    const reloaded = JSON.parse(JSON.stringify(history)) as CanonicalMessage[];
    expect(JSON.stringify(blocks(reloaded))).toBe(JSON.stringify(now));
  });

  it("the same through the fake's own signed thinking (no fixture), with thinking on", async () => {
    const thinking = { budgetTokens: 1024 };
    const history: CanonicalMessage[] = [userTurn("m1", "plan it")];
    const outOfBudget: FakeReply = {
      type: "reasoning",
      reasoning: "A long plan",
      then: { type: "length" },
    };
    fake.enqueue(outOfBudget);
    const first = await collect(requestFor(history), { thinking });
    expect(first.events.at(-1)).toEqual({ type: "finish", reason: "length" });
    history.push(storedFrom(first.events, 0), userTurn("m2", "shorter please"));
    fake.enqueue({ type: "text", text: "Short plan." });
    const second = await collect(requestFor(history), { thinking });
    expect(second.error).toBeUndefined();
    expect(fake.requests.map((request) => request.status)).toEqual([200, 200]);
  });
});

describe("thinking on, open tool round without Anthropic thinking", () => {
  it("sends a body the API accepts (thinking left off for that call only)", async () => {
    const thinking = { budgetTokens: 1024 };
    // The round came from another provider (an OpenAI Responses replay entry, no thinking).
    const history: CanonicalMessage[] = [
      userTurn("m1", "read a.ts"),
      createAssistantMessage({
        runId: "run-o",
        step: 0,
        text: "Reading it.",
        reasoning: "from elsewhere",
        toolCalls: [
          { index: 0, callId: "fc_123", name: "read_file", arguments: '{"path":"a.ts"}' },
        ],
        replay: { "openai-responses": { reasoningItems: [] } },
      }),
      createToolResultMessage({ callId: "fc_123", name: "read_file", content: "export {}" }),
    ];
    fake.enqueue({ type: "text", text: "a.ts is empty." });
    const open = await collect(requestFor(history), { thinking });
    expect(open.error).toBeUndefined();
    expect("thinking" in lastBody()).toBe(false);
    history.push(storedFrom(open.events, 1), userTurn("m2", "thanks"));
    fake.enqueue({ type: "text", text: "You're welcome." });
    const closed = await collect(requestFor(history), { thinking });
    expect(closed.error).toBeUndefined();
    expect(lastBody().thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });

  it("the same body with thinking forced on is what the API refuses", async () => {
    // Proof that the fake enforces the rule the adapter works around.
    const body = adapter({ thinking: { budgetTokens: 1024 } }).serialize(
      requestFor([
        userTurn("m1", "read a.ts"),
        createAssistantMessage({
          runId: "run-o",
          step: 0,
          toolCalls: [{ index: 0, callId: "fc_1", name: "read_file", arguments: "{}" }],
        }),
        createToolResultMessage({ callId: "fc_1", name: "read_file", content: "x" }),
      ]),
    ).body;
    const response = await fetch(`${fake.anthropicBaseURL}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({ ...body, thinking: { type: "enabled", budget_tokens: 1024 } }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("must start with a thinking block");
  });
});

describe("billing error inside the stream", () => {
  it("is a permanent QuotaExceededError with a clear code, never retried", async () => {
    fake.enqueue({ type: "stream", events: billingErrorEvents });
    const { error } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    const quota = error as QuotaExceededError;
    expect(quota).toMatchObject({ providerId: "anthropic", retryable: false });
    expect(retryDelayMs({ error: quota, retry: 1, policy: defaultRetryPolicy })).toBeUndefined();
    expect(describeLoopError(quota)).toEqual({
      code: "provider_quota_exceeded",
      message: "Your credit balance is too low to access the Anthropic API.",
      retryable: false,
    });
  });

  it("and as an HTTP 402 before the stream", async () => {
    fake.enqueue({ type: "error", status: 402 });
    const { error } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 402, retryable: false });
  });
});

describe("cache-write usage", () => {
  it("reads the 5-minute / 1-hour split of the writes", async () => {
    fake.enqueue({ type: "stream", events: cacheWriteEvents });
    const { events } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: {
        inputTokens: 4225,
        cachedInputTokens: 0,
        cacheWriteTokens: 4200,
        cacheWrite1hTokens: 3000,
        outputTokens: 3,
      },
    });
  });

  it("writes the stable prefix with a 1-hour TTL and reads it after a 5-minute pause", async () => {
    let now = 1_800_000_000_000;
    const clocked = await startFakeProvider({ cache: { clock: () => now, anthropicMinTokens: 1 } });
    try {
      const oneHour = createAnthropicAdapter({
        apiKey: "k",
        baseURL: clocked.anthropicBaseURL,
        stablePrefixCacheTtl: "1h",
      });
      const usageOf = async (request: ModelRequest) => {
        for await (const event of oneHour.stream(request))
          if (event.type === "usage") return event.usage;
        throw new Error("no usage");
      };
      const first = await usageOf(requestFor([userTurn("m1", "hi")]));
      expect(first.cacheWrite1hTokens).toBeGreaterThan(0);
      expect(first.cacheWrite1hTokens).toBeLessThan(first.cacheWriteTokens);
      expect(clocked.requests[0]!.status).toBe(200);
      now += 10 * 60 * 1000; // the 5-minute history entries expired, the 1-hour ones did not
      const second = await usageOf(requestFor([userTurn("m2", "hello again")]));
      expect(second.cachedInputTokens).toBe(first.cacheWrite1hTokens);
    } finally {
      await clocked.close();
    }
  });
});
