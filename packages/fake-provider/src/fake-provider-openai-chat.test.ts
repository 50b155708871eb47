import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { longInstructions } from "./__fixtures__/prompts.js";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";

let provider: FakeProvider;
let client: OpenAI;

beforeAll(async () => {
  provider = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
  client = new OpenAI({ apiKey: "sk-test", baseURL: provider.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const system = { role: "system" as const, content: longInstructions };
const streamed = { stream: true as const, stream_options: { include_usage: true } };

describe("fake provider: OpenAI Chat Completions through the official SDK", () => {
  it("streams text with include_usage and reports cached tokens on the next turn", async () => {
    provider.enqueue({ type: "text", text: "Hi! How can I help?", chunks: 2 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      system,
      { role: "user", content: "hello" },
    ];
    const stream = await client.chat.completions.create({
      model: "gpt-4.1",
      messages,
      prompt_cache_key: "c1",
      ...streamed,
    });
    const contents: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) contents.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(contents).toEqual(["Hi! How ca", "n I help?"]);
    expect(finish).toBe("stop");
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(usage?.prompt_tokens).toBe(provider.requests[0]!.usage!.inputTokens);

    const next = await client.chat.completions.create({
      model: "gpt-4.1",
      prompt_cache_key: "c1",
      messages: [
        ...messages,
        { role: "assistant", content: contents.join("") },
        { role: "user", content: "more" },
      ],
    });
    const previous = usage!.prompt_tokens;
    expect(next.usage?.prompt_tokens_details?.cached_tokens).toBe(
      1024 + Math.floor((previous - 1024) / 128) * 128,
    );
    expect(next.choices[0]?.message).toEqual({
      role: "assistant",
      content: "OK",
      refusal: null,
      annotations: [],
    });
  });

  it("streams parallel tool calls that the SDK's stream helper accumulates", async () => {
    provider.enqueue({
      type: "tool-calls",
      calls: [
        { name: "read", arguments: '{"path":"a.ts"}', callId: "call_a" },
        { name: "grep", arguments: '{"q":"x"}' },
      ],
    });
    const runner = client.chat.completions.stream({
      model: "gpt-4.1",
      messages: [system, { role: "user", content: "go" }],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    const message = final.choices[0]!.message;
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(
      message.tool_calls?.map(
        (c) => c.type === "function" && [c.id, c.function.name, c.function.arguments],
      ),
    ).toEqual([
      ["call_a", "read", '{"path":"a.ts"}'],
      [expect.stringMatching(/^call_/), "grep", '{"q":"x"}'],
    ]);
    expect(final.usage?.completion_tokens).toBe(provider.requests[0]!.usage!.outputTokens);
  });

  it("answers tool results, counts reasoning tokens and streams refusals", async () => {
    provider.enqueue(
      { type: "tool-calls", calls: [{ name: "ls", arguments: "{}", callId: "call_1" }] },
      { type: "reasoning", reasoning: "hidden thoughts", then: { type: "text", text: "done" } },
      { type: "refusal", text: "No." },
    );
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      system,
      { role: "user", content: "ls" },
    ];
    const first = await client.chat.completions.create({ model: "m", messages });
    const assistant = first.choices[0]!.message;
    expect(assistant.content).toBeNull();
    const second = await client.chat.completions.create({
      model: "m",
      messages: [
        ...messages,
        { role: "assistant", content: null, tool_calls: assistant.tool_calls ?? [] },
        { role: "tool", tool_call_id: "call_1", content: "a.ts" },
      ],
    });
    expect(second.choices[0]!.message.content).toBe("done");
    expect(second.usage?.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    const refusal = await client.chat.completions
      .stream({ model: "m", messages })
      .finalChatCompletion();
    expect(refusal.choices[0]!.message.refusal).toBe("No.");
  });

  it("refuses malformed tool rounds like the real API", async () => {
    await expect(
      client.chat.completions.create({
        model: "m",
        messages: [
          { role: "user", content: "x" },
          { role: "tool", tool_call_id: "ghost", content: "" },
        ],
      }),
    ).rejects.toThrow(/must be a response to a preceeding message with 'tool_calls'/);
    await expect(
      client.chat.completions.create({
        model: "m",
        messages: [
          { role: "user", content: "x" },
          {
            role: "assistant",
            tool_calls: [{ id: "c9", type: "function", function: { name: "f", arguments: "{}" } }],
          },
          { role: "user", content: "y" },
        ],
      }),
    ).rejects.toThrow(/did not have response messages: c9/);
    expect(provider.pendingReplies()).toBe(0);
  });

  it("answers errors in OpenAI's shapes and cuts / slows streams", async () => {
    provider.enqueue(
      { type: "context-overflow" },
      { type: "error", status: 429, retryAfterSeconds: 2 },
      { type: "error", status: 500 },
      { type: "cut", afterEvents: 2, reply: { type: "text", text: "abcdef", chunks: 6 } },
      { type: "slow", delayMsPerEvent: 10, reply: { type: "text", text: "ab", chunks: 2 } },
    );
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "x" }];
    const call = () => client.chat.completions.create({ model: "m", messages, ...streamed });
    await expect(call()).rejects.toMatchObject({
      status: 400,
      code: "context_length_exceeded",
      param: "messages",
    });
    await expect(call()).rejects.toMatchObject({ status: 429, headers: expect.any(Headers) });
    await expect(call()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    const seen: string[] = [];
    const consume = async () => {
      for await (const chunk of await call()) seen.push(chunk.choices[0]?.delta.content ?? "");
    };
    await expect(consume()).rejects.toThrow();
    expect(seen).toEqual(["", "a"]);
    const started = performance.now();
    let chunks = 0;
    for await (const _chunk of await call()) chunks += 1;
    // role chunk, 2 content chunks, finish chunk, usage chunk (+ [DONE], which the SDK hides)
    expect(chunks).toBe(5);
    expect(performance.now() - started).toBeGreaterThanOrEqual(6 * 10 - 5);
  });

  it("reports cache_write_tokens for GPT-5.6, finishes with length, and quota as 429", async () => {
    const call = (model: string) =>
      client.chat.completions.create({
        model,
        messages: [system, { role: "user", content: "hello" }],
        prompt_cache_key: "c-writes",
      });
    const written = await call("gpt-5.6");
    expect(written.usage?.prompt_tokens_details).toEqual({
      cached_tokens: 0,
      audio_tokens: 0,
      cache_write_tokens: provider.simulator.openaiGranule(written.usage!.prompt_tokens),
    });
    expect((await call("gpt-4.1")).usage?.prompt_tokens_details).toEqual({
      cached_tokens: 0,
      audio_tokens: 0,
    });
    provider.enqueue({ type: "length", text: "partial" });
    const cut = await call("gpt-5.6");
    expect(cut.choices[0]).toMatchObject({
      finish_reason: "length",
      message: { content: "partial" },
    });
    provider.enqueue({ type: "error", status: 429, code: "insufficient_quota" });
    await expect(call("gpt-5.6")).rejects.toMatchObject({
      status: 429,
      code: "insufficient_quota",
    });
  });

  it("sends recorded chunks verbatim, then [DONE]", async () => {
    const chunk = (delta: object, finish: string | null = null) => ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "deepseek-reasoner",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    provider.enqueue({
      type: "stream",
      events: [chunk({ role: "assistant", reasoning: "think" }), chunk({ content: "hi" }, "stop")],
    });
    const stream = await client.chat.completions.create({
      model: "deepseek-reasoner",
      messages: [{ role: "user", content: "x" }],
      ...streamed,
    });
    const deltas: unknown[] = [];
    for await (const received of stream) deltas.push(received.choices[0]?.delta);
    expect(deltas).toEqual([{ role: "assistant", reasoning: "think" }, { content: "hi" }]);
  });
});
