import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { longInstructions } from "./__fixtures__/prompts.js";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";

let provider: FakeProvider;
let client: OpenAI;
const now = 1_800_000_000_000;

beforeAll(async () => {
  provider = await startFakeProvider({ cache: { clock: () => now } });
  client = new OpenAI({ apiKey: "sk-test-secret", baseURL: provider.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const base = {
  model: "gpt-5",
  instructions: longInstructions,
  store: false,
  prompt_cache_key: "conv-1",
} as const;

describe("fake provider: OpenAI Responses through the official SDK", () => {
  it("streams a text answer with usage, and records the request without secrets", async () => {
    provider.enqueue({ type: "text", text: "Hello there, friend.", chunks: 3 });
    const stream = await client.responses.create({
      ...base,
      input: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const types: string[] = [];
    const deltas: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") deltas.push(event.delta);
      if (event.type === "response.completed") completed = event.response;
    }
    expect(deltas).toEqual(["Hello t", "here, f", "riend."]);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(completed?.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [
          { type: "output_text", annotations: [], logprobs: [], text: "Hello there, friend." },
        ],
      },
    ]);
    const recorded = provider.requests[0]!;
    expect(recorded.api).toBe("openai-responses");
    expect(recorded.path).toBe("/v1/responses");
    expect(recorded.headers.authorization).toBeUndefined();
    expect(JSON.stringify(recorded.headers)).not.toContain("sk-test-secret");
    expect(Object.keys(recorded.body as object)).toEqual([
      "model",
      "instructions",
      "store",
      "prompt_cache_key",
      "input",
      "stream",
    ]);
    expect(completed?.usage).toEqual({
      input_tokens: recorded.usage!.inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: recorded.usage!.outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: recorded.usage!.inputTokens + recorded.usage!.outputTokens,
    });
  });

  it("reports cached tokens on an append-only second turn", async () => {
    const first = [{ role: "user" as const, content: "first question" }];
    const one = await client.responses.create({ ...base, input: first });
    const two = await client.responses.create({
      ...base,
      input: [
        ...first,
        { role: "assistant" as const, content: one.output_text },
        { role: "user" as const, content: "second question" },
      ],
    });
    const previousInput = one.usage!.input_tokens;
    const expected = 1024 + Math.floor((previousInput - 1024) / 128) * 128;
    expect(two.usage!.input_tokens_details.cached_tokens).toBe(expected);
    expect(provider.requests[1]!.cache).toMatchObject({
      pureAppend: true,
      divergence: null,
      bestPossibleCachedTokens: expected,
      cachedTokens: expected,
    });
  });

  it("helper stream (.stream()) accumulates text, reasoning and parallel tool calls", async () => {
    provider.enqueue({
      type: "reasoning",
      reasoning: "Need two files.",
      then: {
        type: "tool-calls",
        text: "Reading both.",
        calls: [
          { name: "read", arguments: '{"path":"a.ts"}', callId: "call_a" },
          { name: "read", arguments: '{"path":"b.ts"}', callId: "call_b" },
        ],
      },
    });
    const stream = client.responses.stream({ ...base, input: "read a and b" });
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    const reasoning = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary).toEqual([{ type: "summary_text", text: "Need two files." }]);
    expect(reasoning.encrypted_content).toMatch(/^enc_/);
    const calls = final.output.flatMap((item) =>
      item.type === "function_call" ? [[item.call_id, item.name, item.arguments]] : [],
    );
    expect(calls).toEqual([
      ["call_a", "read", '{"path":"a.ts"}'],
      ["call_b", "read", '{"path":"b.ts"}'],
    ]);
    expect(final.output_text).toBe("Reading both.");
    expect(final.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it("accepts replayed encrypted reasoning and refuses an edited one", async () => {
    provider.enqueue({
      type: "reasoning",
      reasoning: "think",
      then: { type: "tool-calls", calls: [{ name: "ls", arguments: "{}", callId: "call_1" }] },
    });
    const first = await client.responses.create({ ...base, input: "list" });
    const replay = first.output.map((item) => item as OpenAI.Responses.ResponseInputItem);
    const input: OpenAI.Responses.ResponseInput = [
      { role: "user", content: "list" },
      ...replay,
      { type: "function_call_output", call_id: "call_1", output: "a.ts" },
    ];
    const second = await client.responses.create({ ...base, input });
    expect(second.output_text).toBe("OK");
    const tampered = input.map((item) =>
      "type" in item && item.type === "reasoning"
        ? { ...item, encrypted_content: `${item.encrypted_content}x` }
        : item,
    );
    await expect(client.responses.create({ ...base, input: tampered })).rejects.toMatchObject({
      status: 400,
      error: { type: "invalid_request_error" },
    });
    const orphan: OpenAI.Responses.ResponseInput = [
      { role: "user", content: "x" },
      { type: "function_call_output", call_id: "nope", output: "" },
    ];
    await expect(client.responses.create({ ...base, input: orphan })).rejects.toThrow(
      /No tool call found for function call output with call_id nope/,
    );
  });

  it("streams a refusal part", async () => {
    provider.enqueue({ type: "refusal", text: "I can't help with that." });
    const final = await client.responses.stream({ ...base, input: "bad" }).finalResponse();
    expect(final.output[0]).toMatchObject({
      type: "message",
      content: [{ type: "refusal", refusal: "I can't help with that." }],
    });
  });

  it("answers errors in OpenAI's shapes: overflow, 429 with retry-after, 500, 503, 401", async () => {
    provider.enqueue(
      { type: "context-overflow" },
      { type: "error", status: 429, retryAfterSeconds: 7 },
      { type: "error", status: 500 },
      { type: "error", status: 503 },
      { type: "error", status: 401 },
    );
    const call = () => client.responses.create({ ...base, input: "x", stream: true });
    await expect(call()).rejects.toMatchObject({
      status: 400,
      code: "context_length_exceeded",
      param: "input",
    });
    const rateLimited = await call().catch((error: unknown) => error);
    expect(rateLimited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(
      (rateLimited as InstanceType<typeof OpenAI.RateLimitError>).headers.get("retry-after"),
    ).toBe("7");
    await expect(call()).rejects.toBeInstanceOf(OpenAI.InternalServerError);
    await expect(call()).rejects.toMatchObject({ status: 503 });
    await expect(call()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(provider.requests.map((r) => r.status)).toEqual([400, 429, 500, 503, 401]);
    expect(provider.requests.every((r) => r.cache === null && r.usage === null)).toBe(true);
  });

  it("cuts a stream mid-way and slows one down", async () => {
    provider.enqueue({ type: "cut", afterEvents: 4, reply: { type: "text", text: "abcdef" } });
    const seen: string[] = [];
    const consume = async () => {
      const stream = await client.responses.create({ ...base, input: "x", stream: true });
      for await (const event of stream) seen.push(event.type);
    };
    await expect(consume()).rejects.toThrow();
    expect(seen).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    provider.enqueue({
      type: "slow",
      delayMsPerEvent: 15,
      reply: { type: "text", text: "ab", chunks: 1 },
    });
    const started = performance.now();
    const slow = await client.responses.create({ ...base, input: "x", stream: true });
    let count = 0;
    for await (const _event of slow) count += 1;
    expect(count).toBe(9);
    expect(performance.now() - started).toBeGreaterThanOrEqual(9 * 15 - 5);
  });

  it("keeps commentary and the final answer as separate message items with their phase", async () => {
    provider.enqueue({
      type: "reasoning",
      reasoning: "Plan the edit.",
      then: {
        type: "commentary",
        text: "I'll read the file first.",
        then: { type: "text", text: "All done.", phase: "final_answer" },
      },
    });
    const response = await client.responses.create({
      ...base,
      model: "gpt-5.3-codex",
      input: "go",
    });
    const messages = response.output.filter((item) => item.type === "message");
    expect(messages.map((item) => [item.phase, item.content])).toEqual([
      [
        "commentary",
        [{ type: "output_text", annotations: [], logprobs: [], text: "I'll read the file first." }],
      ],
      ["final_answer", [{ type: "output_text", annotations: [], logprobs: [], text: "All done." }]],
    ]);
  });

  it("ends with response.incomplete (max_output_tokens) on a length reply", async () => {
    provider.enqueue({ type: "reasoning", reasoning: "long thought", then: { type: "length" } });
    const stream = await client.responses.create({ ...base, input: "x", stream: true });
    const types: string[] = [];
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) {
      types.push(event.type);
      last = event;
    }
    expect(types.at(-1)).toBe("response.incomplete");
    expect(last?.type === "response.incomplete" && last.response.incomplete_details).toEqual({
      reason: "max_output_tokens",
    });
    expect(types).not.toContain("response.output_text.delta");
  });

  it("reports cache_write_tokens for GPT-5.6 and with prompt_cache_options", async () => {
    const first = await client.responses.create({ ...base, model: "gpt-5.6", input: "first" });
    expect(first.usage?.input_tokens_details).toEqual({
      cached_tokens: 0,
      cache_write_tokens: provider.simulator.openaiGranule(first.usage!.input_tokens),
    });
    expect(provider.requests[0]!.usage!.cacheWriteTokens).toBeGreaterThan(0);
    const second = await client.responses.create({
      ...base,
      model: "gpt-5.6",
      input: [
        { role: "user", content: "first" },
        { role: "user", content: "second" },
      ],
    });
    const details = second.usage!.input_tokens_details;
    expect(details.cached_tokens).toBeGreaterThan(0);
    expect(details.cached_tokens + details.cache_write_tokens).toBe(
      provider.simulator.openaiGranule(second.usage!.input_tokens),
    );
    // gpt-5 (older): no cache writes reported.
    const old = await client.responses.create({ ...base, input: "first" });
    expect(old.usage?.input_tokens_details).toEqual({ cached_tokens: 0 });
    const withOptions = await client.responses.create({
      ...base,
      prompt_cache_key: "conv-options",
      prompt_cache_options: { mode: "implicit", ttl: "30m" },
      input: "first",
    });
    expect(withOptions.usage?.input_tokens_details.cache_write_tokens).toBeGreaterThan(0);
  });

  it("keeps prompt_cache_options.ttl entries 30 minutes; explicit mode without breakpoints caches nothing", async () => {
    const clocked = await startFakeProvider({ cache: { clock: () => clock.now } });
    const clock = { now: 0 };
    try {
      const sdk = new OpenAI({ apiKey: "k", baseURL: clocked.openaiBaseURL, maxRetries: 0 });
      const ask = (options: object) =>
        sdk.responses.create({ ...base, ...options, input: "same prompt" });
      await ask({ prompt_cache_options: { ttl: "30m" } });
      clock.now += 20 * 60 * 1000;
      expect(
        (await ask({ prompt_cache_options: { ttl: "30m" } })).usage!.input_tokens_details
          .cached_tokens,
      ).toBeGreaterThan(0);
      const explicit = { prompt_cache_key: "explicit", prompt_cache_options: { mode: "explicit" } };
      await ask(explicit);
      expect((await ask(explicit)).usage!.input_tokens_details.cached_tokens).toBe(0);
    } finally {
      await clocked.close();
    }
  });

  it("sends recorded stream events verbatim (a quota error inside the stream)", async () => {
    provider.enqueue({
      type: "stream",
      events: [
        {
          type: "response.created",
          sequence_number: 0,
          response: { id: "resp_1", status: "in_progress", output: [] },
        },
        {
          type: "error",
          sequence_number: 1,
          code: "insufficient_quota",
          message: "You exceeded your current quota, please check your plan and billing details.",
          param: null,
        },
      ],
    });
    const stream = await client.responses.create({ ...base, input: "x", stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual(["response.created", "error"]);
    expect(events[1]).toMatchObject({ type: "error", code: "insufficient_quota" });
    expect(provider.requests[0]).toMatchObject({ status: 200, usage: null });
    expect(provider.requests[0]!.cache).not.toBeNull();
  });

  it("answers a 429 insufficient_quota in OpenAI's shape", async () => {
    provider.enqueue({ type: "error", status: 429, code: "insufficient_quota" });
    const error = await client.responses.create({ ...base, input: "x" }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 429,
      code: "insufficient_quota",
      type: "insufficient_quota",
      message: expect.stringContaining("You exceeded your current quota"),
    });
  });
});
