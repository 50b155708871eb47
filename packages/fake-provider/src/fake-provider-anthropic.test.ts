import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { longInstructions } from "./__fixtures__/prompts.js";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";

let provider: FakeProvider;
let client: Anthropic;

beforeAll(async () => {
  provider = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
  client = new Anthropic({
    apiKey: "sk-ant-secret",
    baseURL: provider.anthropicBaseURL,
    maxRetries: 0,
  });
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

const marker = { type: "ephemeral" as const };
const system: Anthropic.TextBlockParam[] = [
  { type: "text", text: longInstructions, cache_control: marker },
];
const base = { model: "claude-sonnet-4-5", max_tokens: 1024, system } as const;

describe("fake provider: Anthropic Messages through the official SDK", () => {
  it("streams text with non-overlapping cache usage across turns", async () => {
    provider.enqueue({ type: "text", text: "Hello!", chunks: 2 });
    const first = client.messages.stream({
      ...base,
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: marker }] }],
    });
    const deltas: string[] = [];
    first.on("text", (text) => deltas.push(text));
    const one = await first.finalMessage();
    expect(deltas).toEqual(["Hel", "lo!"]);
    expect(one.content).toEqual([{ type: "text", text: "Hello!" }]);
    expect(one.stop_reason).toBe("end_turn");
    const recorded = provider.requests[0]!;
    expect(recorded.headers["x-api-key"]).toBeUndefined();
    expect(recorded.cache?.tokenizer).toBe("o200k (stand-in for Anthropic's tokenizer)");
    expect(one.usage.cache_read_input_tokens).toBe(0);
    expect(one.usage.cache_creation_input_tokens).toBe(recorded.cache!.inputTokens);
    expect(one.usage.input_tokens).toBe(0);

    const two = await client.messages.create({
      ...base,
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: one.content },
        { role: "user", content: [{ type: "text", text: "again", cache_control: marker }] },
      ],
    });
    const total = provider.requests[1]!.cache!.inputTokens;
    expect(two.usage.cache_read_input_tokens).toBe(recorded.cache!.inputTokens);
    expect(
      two.usage.cache_read_input_tokens! +
        two.usage.cache_creation_input_tokens! +
        two.usage.input_tokens,
    ).toBe(total);
    expect(provider.requests[1]!.usage).toEqual({
      inputTokens: total,
      cachedInputTokens: recorded.cache!.inputTokens,
      cacheWriteTokens: total - recorded.cache!.inputTokens,
      outputTokens: two.usage.output_tokens,
    });
  });

  it("streams parallel tool_use blocks with their JSON input", async () => {
    provider.enqueue({
      type: "tool-calls",
      text: "Let me look.",
      calls: [
        { name: "read", arguments: '{"path":"a.ts"}', callId: "toolu_a" },
        { name: "read", arguments: '{"path":"b.ts"}' },
      ],
    });
    const message = await client.messages
      .stream({ ...base, messages: [{ role: "user", content: "go" }] })
      .finalMessage();
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.ts" } },
      {
        type: "tool_use",
        id: expect.stringMatching(/^toolu_/),
        name: "read",
        input: { path: "b.ts" },
      },
    ]);
  });

  it("signs thinking blocks against the history and refuses a replay after an edit", async () => {
    provider.enqueue({
      type: "reasoning",
      reasoning: "The user wants a listing.",
      then: { type: "tool-calls", calls: [{ name: "ls", arguments: "{}", callId: "toolu_1" }] },
    });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "list files" }];
    const withThinking = {
      ...base,
      max_tokens: 2048,
      thinking: { type: "enabled" as const, budget_tokens: 1024 },
    };
    const first = await client.messages
      .stream({ ...withThinking, messages: history })
      .finalMessage();
    expect(first.content[0]).toEqual({
      type: "thinking",
      thinking: "The user wants a listing.",
      signature: expect.stringMatching(/^sig_/),
    });
    const followUp = (user: Anthropic.MessageParam): Anthropic.MessageParam[] => [
      user,
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.ts" }] },
    ];
    const ok = await client.messages.create({ ...withThinking, messages: followUp(history[0]!) });
    expect(ok.content).toEqual([{ type: "text", text: "OK" }]);
    await expect(
      client.messages.create({
        ...withThinking,
        messages: followUp({ role: "user", content: "list all files" }),
      }),
    ).rejects.toMatchObject({
      status: 400,
      error: { type: "error", error: { type: "invalid_request_error" } },
    });
    expect(provider.requests.at(-1)!.error?.body).toMatchObject({
      error: { message: "messages.1.content.0: Invalid `signature` in `thinking` block" },
    });
  });

  it("emits and verifies redacted_thinking blocks", async () => {
    provider.enqueue({
      type: "reasoning",
      reasoning: "secret",
      redacted: true,
      then: { type: "text", text: "Hi" },
    });
    const history: Anthropic.MessageParam[] = [{ role: "user", content: "hey" }];
    const first = await client.messages.stream({ ...base, messages: history }).finalMessage();
    expect(first.content[0]).toEqual({ type: "redacted_thinking", data: expect.any(String) });
    const replay = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageParam[] => [
      ...history,
      { role: "assistant", content },
      { role: "user", content: "next" },
    ];
    await expect(
      client.messages.create({ ...base, messages: replay(first.content) }),
    ).resolves.toBeTruthy();
    const edited = [
      {
        type: "redacted_thinking" as const,
        data: `x${(first.content[0] as Anthropic.RedactedThinkingBlock).data}`,
      },
    ];
    await expect(
      client.messages.create({ ...base, messages: replay(edited) }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("refuses more than four cache markers and unanswered tool_use blocks", async () => {
    const block = (text: string): Anthropic.TextBlockParam => ({
      type: "text",
      text,
      cache_control: marker,
    });
    await expect(
      client.messages.create({
        ...base,
        messages: [{ role: "user", content: [block("a"), block("b"), block("c"), block("d")] }],
      }),
    ).rejects.toThrow(/A maximum of 4 blocks with cache_control may be provided. Found 5/);
    await expect(
      client.messages.create({
        ...base,
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
          { role: "user", content: "y" },
        ],
      }),
    ).rejects.toThrow(
      /tool_use` ids were found without `tool_result` blocks immediately after: t1/,
    );
  });

  it("stops with refusal and answers errors in Anthropic's shapes", async () => {
    provider.enqueue(
      { type: "refusal", text: "I can't." },
      { type: "context-overflow" },
      { type: "error", status: 429, retryAfterSeconds: 3 },
      { type: "error", status: 529 },
      { type: "error", status: 401 },
    );
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "x" }];
    const refusal = await client.messages.stream({ ...base, messages }).finalMessage();
    expect(refusal.stop_reason).toBe("refusal");
    const call = () => client.messages.create({ ...base, messages, stream: true });
    await expect(call()).rejects.toMatchObject({
      status: 400,
      error: {
        error: {
          type: "invalid_request_error",
          message: expect.stringMatching(/^prompt is too long: \d+ tokens > \d+ maximum$/),
        },
      },
    });
    const limited = await call().catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError);
    expect(
      (limited as InstanceType<typeof Anthropic.RateLimitError>).headers?.get("retry-after"),
    ).toBe("3");
    await expect(call()).rejects.toMatchObject({
      status: 529,
      error: { error: { type: "overloaded_error" } },
    });
    await expect(call()).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it("cuts a stream mid-way and slows one down", async () => {
    provider.enqueue(
      { type: "cut", afterEvents: 3, reply: { type: "text", text: "abcdef", chunks: 3 } },
      { type: "slow", delayMsPerEvent: 10, reply: { type: "text", text: "ab", chunks: 1 } },
    );
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "x" }];
    const seen: string[] = [];
    const consume = async () => {
      for await (const event of await client.messages.create({ ...base, messages, stream: true }))
        seen.push(event.type);
    };
    await expect(consume()).rejects.toThrow();
    expect(seen).toEqual(["message_start", "content_block_start"]);
    const started = performance.now();
    const slow = await client.messages.stream({ ...base, messages }).finalMessage();
    expect(slow.content).toEqual([{ type: "text", text: "ab" }]);
    // message_start, ping, block start / delta / stop, message_delta, message_stop
    expect(performance.now() - started).toBeGreaterThanOrEqual(7 * 10 - 5);
  });

  it("counts tokens like the simulation does", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "count me" }];
    const counted = await client.messages.countTokens({ model: base.model, system, messages });
    await client.messages.create({ ...base, messages });
    expect(counted.input_tokens).toBe(provider.requests.at(-1)!.cache!.inputTokens);
  });

  it("refuses what the real API refuses: a final thinking block, blank text, a round without thinking, TTL order", async () => {
    const user = { role: "user" as const, content: "hi" };
    const refused = async (body: object, message: RegExp) => {
      const error = await client.messages
        .create({ ...base, ...body } as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as Error).message).toMatch(message);
    };
    // A thinking-only assistant message (the signature check comes after this rule).
    await refused(
      {
        messages: [
          user,
          { role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }] },
          user,
        ],
      },
      /The final block in an assistant message cannot be `thinking`/,
    );
    await refused(
      { messages: [{ role: "user", content: [{ type: "text", text: " \n" }] }] },
      /text content blocks must contain non-whitespace text/,
    );
    await refused(
      {
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [
          user,
          {
            role: "assistant",
            content: [
              { type: "text", text: "Reading." },
              { type: "tool_use", id: "toolu_1", name: "read", input: {} },
            ],
          },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "x" }],
          },
        ],
      },
      /a final `assistant` message must start with a thinking block/,
    );
    await refused(
      {
        system: [{ type: "text", text: longInstructions, cache_control: { type: "ephemeral" } }],
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } },
            ],
          },
        ],
      },
      /with a 1h ttl cannot come after one with a 5m ttl/,
    );
    expect(provider.requests.every((request) => request.status === 400)).toBe(true);
  });

  it("stops with max_tokens, splits cache writes by TTL and answers billing errors", async () => {
    provider.enqueue({ type: "reasoning", reasoning: "a long thought", then: { type: "length" } });
    const thinkingOnly = await client.messages.create({
      ...base,
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      system: [
        { type: "text", text: longInstructions, cache_control: { type: "ephemeral", ttl: "1h" } },
      ],
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: marker }] }],
    });
    expect(thinkingOnly.stop_reason).toBe("max_tokens");
    expect(thinkingOnly.content.map((block) => block.type)).toEqual(["thinking"]);
    const creation = thinkingOnly.usage.cache_creation!;
    expect(creation.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    expect(creation.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    expect(creation.ephemeral_1h_input_tokens + creation.ephemeral_5m_input_tokens).toBe(
      thinkingOnly.usage.cache_creation_input_tokens,
    );
    expect(provider.requests[0]!.usage).toMatchObject({
      cacheWriteTokens: thinkingOnly.usage.cache_creation_input_tokens,
      cacheWrite1hTokens: creation.ephemeral_1h_input_tokens,
    });
    provider.enqueue({ type: "error", status: 402 });
    await expect(
      client.messages.create({ ...base, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 402, type: "billing_error" });
  });
});
