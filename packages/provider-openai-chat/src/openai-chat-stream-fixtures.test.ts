// Chunk fixtures of OpenAI-compatible servers (each reasoning shape, a quota error inside the
// stream, cache-write usage), served verbatim by the @cursor/testkit fake provider over real
// HTTP and read by the adapter through the official SDK.
import { retryDelayMs } from "@cursor/run/internal";
import type { ModelRequest, ProviderEvent } from "@cursor/run";
import {
  QuotaExceededError,
  createAssistantMessage,
  createRuntimeMessage,
  defaultRetryPolicy,
  describeLoopError,
  toModelRequest,
} from "@cursor/run";
import type { CanonicalMessage, JsonValue } from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { promptSpec } from "./__fixtures__/conversation.js";
import {
  cacheWriteChunks,
  contentPartChunks,
  deltaReasoningChunks,
  quotaErrorChunks,
  reasoningContentChunks,
  reasoningDetailsChunks,
  unknownReasoningChunks,
} from "./__fixtures__/reasoning-chunks.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";
import type { OpenAIChatAdapterOptions } from "./openai-chat-adapter.js";
import type { OpenAIChatBody } from "./openai-chat-api.js";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const adapter = (options: OpenAIChatAdapterOptions = {}) =>
  createOpenAIChatAdapter({ apiKey: "sk-test", baseURL: fake.openaiBaseURL, ...options });

const userTurn = (id: string, text: string) =>
  createRuntimeMessage({
    eventId: `turn.${id}.0000000000000000`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });

const requestFor = (messages: CanonicalMessage[], model = "deepseek-reasoner"): ModelRequest =>
  toModelRequest({ conversationId: "conv-chat", model, promptSpec, messages });

async function collect(request: ModelRequest, options: OpenAIChatAdapterOptions = {}) {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of adapter(options).stream(request)) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

const joined = (events: readonly ProviderEvent[], type: "text-delta" | "reasoning-delta") =>
  events.flatMap((event) => (event.type === type ? [event.text] : [])).join("");

describe("reasoning from OpenAI-compatible servers, through the SDK", () => {
  it.each([
    ["delta.reasoning", deltaReasoningChunks],
    ["delta.reasoning_content", reasoningContentChunks],
    ["content parts", contentPartChunks],
    ["reasoning_details", reasoningDetailsChunks],
  ])("%s", async (_name, chunks) => {
    fake.enqueue({ type: "stream", events: chunks });
    const { events, error } = await collect(requestFor([userTurn("m1", "why?")]));
    expect(error).toBeUndefined();
    expect(joined(events, "reasoning-delta")).toBe("Check the imports first.");
    expect(joined(events, "text-delta")).toBe("The import is missing.");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("unknown shapes are warnings: the call neither fails nor retries", async () => {
    fake.enqueue({ type: "stream", events: unknownReasoningChunks });
    const { events, error } = await collect(requestFor([userTurn("m1", "why?")]));
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === "warning")).toHaveLength(3);
    expect(joined(events, "text-delta")).toBe("The import is missing.");
  });

  it("replays the parsed reasoning as reasoning_content to servers that want it", async () => {
    fake.enqueue({ type: "stream", events: contentPartChunks });
    const history: CanonicalMessage[] = [userTurn("m1", "why?")];
    const first = await collect(requestFor(history), { replayReasoningContent: true });
    const replay = first.events.find((event) => event.type === "replay");
    history.push(
      createAssistantMessage({
        runId: "r",
        step: 0,
        text: joined(first.events, "text-delta"),
        reasoning: joined(first.events, "reasoning-delta"),
        replay: { "openai-chat": (replay as { state: JsonValue }).state },
      }),
      userTurn("m2", "and then?"),
    );
    await collect(requestFor(history), { replayReasoningContent: true });
    const sent = fake.requests[1]!.body as OpenAIChatBody;
    expect(sent.messages.find((message) => message.role === "assistant")).toEqual({
      role: "assistant",
      content: "The import is missing.",
      reasoning_content: "Check the imports first.",
    });
  });
});

describe("quota exhausted", () => {
  it("inside the stream: a permanent QuotaExceededError", async () => {
    fake.enqueue({ type: "stream", events: quotaErrorChunks });
    const { error } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    const quota = error as QuotaExceededError;
    expect(retryDelayMs({ error: quota, retry: 1, policy: defaultRetryPolicy })).toBeUndefined();
    expect(describeLoopError(quota).code).toBe("provider_quota_exceeded");
  });

  it("as an HTTP 429 insufficient_quota: permanent, not a rate limit", async () => {
    fake.enqueue({ type: "error", status: 429, code: "insufficient_quota" });
    const { error } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(QuotaExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryable: false });
  });
});

describe("cache writes", () => {
  it("maps prompt_tokens_details.cache_write_tokens into usage", async () => {
    fake.enqueue({ type: "stream", events: cacheWriteChunks });
    const { events } = await collect(requestFor([userTurn("m1", "hi")]));
    expect(events.find((event) => event.type === "usage")).toEqual({
      type: "usage",
      usage: { inputTokens: 2400, cachedInputTokens: 1920, cacheWriteTokens: 384, outputTokens: 3 },
    });
  });

  it("reports the simulation's writes for GPT-5.6 with prompt_cache_options", async () => {
    const long = "Keep every earlier byte. ".repeat(400);
    const options = { promptCacheOptions: { ttl: "30m" as const } };
    const { events } = await collect(requestFor([userTurn("m1", long)], "gpt-5.6"), options);
    const usage = events.flatMap((event) => (event.type === "usage" ? [event.usage] : []))[0];
    expect(usage!.cacheWriteTokens).toBeGreaterThan(0);
    expect(usage).toEqual(fake.requests[0]!.usage);
    expect((fake.requests[0]!.body as OpenAIChatBody).prompt_cache_options).toEqual({ ttl: "30m" });
  });
});
