import { describe, expect, it } from "vitest";
import type { ProviderEvent } from "@cursor/run";
import { NetworkError, ProviderServerError, RefusalError, sha256Hex } from "@cursor/run";
import { chunk, parallelToolCallChunks, usageChunk } from "./__fixtures__/chunks.js";
import { convertOpenAIChatStream } from "./convert-openai-chat-stream.js";

async function* from(chunks: readonly unknown[]): AsyncGenerator<unknown> {
  for (const item of chunks) yield item;
}

async function collect(chunks: readonly unknown[]): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of convertOpenAIChatStream({
    chunks: from(chunks),
    providerId: "openai-chat",
  })) {
    events.push(event);
  }
  return events;
}

const zeroUsage = { inputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };

describe("convertOpenAIChatStream", () => {
  it("streams text deltas, then usage and the finish reason", async () => {
    expect(
      await collect([
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Hel" }),
        chunk({ content: "lo" }),
        chunk({}, "stop"),
        usageChunk({ prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 }),
      ]),
    ).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      {
        type: "usage",
        usage: { inputTokens: 12, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 2 },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("assembles parallel tool calls from indexed deltas with their exact argument text", async () => {
    expect(await collect(parallelToolCallChunks)).toEqual([
      {
        type: "tool-call",
        index: 0,
        callId: "call_r1",
        name: "read_file",
        arguments: '{"path": "a.ts"}',
      },
      { type: "tool-call", index: 1, callId: "call_r2", name: "grep", arguments: '{"q":"x"}' },
      {
        type: "usage",
        usage: {
          inputTokens: 1500,
          cachedInputTokens: 1152,
          cacheWriteTokens: 0,
          outputTokens: 30,
        },
      },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("streams reasoning_content as reasoning deltas and returns it as replay state", async () => {
    expect(
      await collect([
        chunk({ role: "assistant", reasoning_content: "Think" }),
        chunk({ reasoning_content: "ing." }),
        chunk({ content: "Done." }),
        chunk({}, "stop"),
        usageChunk({
          prompt_tokens: 5,
          completion_tokens: 3,
          prompt_cache_hit_tokens: 0,
          prompt_cache_miss_tokens: 5,
        }),
      ]),
    ).toEqual([
      { type: "reasoning-delta", text: "Think" },
      { type: "reasoning-delta", text: "ing." },
      { type: "text-delta", text: "Done." },
      { type: "replay", state: { reasoningContent: "Thinking." } },
      {
        type: "usage",
        usage: { inputTokens: 5, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 3 },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  it("handles servers that omit index, repeat names, send no ids and no usage", async () => {
    const events = await collect([
      {
        id: "resp-1",
        choices: [{ delta: { tool_calls: [{ function: { name: "a", arguments: "{" } }] } }],
      },
      {
        id: "resp-1",
        choices: [{ delta: { tool_calls: [{ function: { name: "a", arguments: "}" } }] } }],
      },
      {
        id: "resp-1",
        choices: [
          { delta: { tool_calls: [{ id: "b-1", function: { name: "b", arguments: "[]" } }] } },
        ],
      },
      { id: "resp-1", choices: [{ delta: {}, finish_reason: "tool_calls" }] },
    ]);
    expect(events).toEqual([
      {
        type: "tool-call",
        index: 0,
        callId: `call_${sha256Hex("resp-1:0").slice(0, 24)}`,
        name: "a",
        arguments: "{}",
      },
      { type: "tool-call", index: 1, callId: "b-1", name: "b", arguments: "[]" },
      { type: "usage", usage: zeroUsage },
      { type: "finish", reason: "tool-calls" },
    ]);
  });

  it("maps length and content_filter finish reasons", async () => {
    expect((await collect([chunk({ content: "x" }, "length")])).at(-1)).toEqual({
      type: "finish",
      reason: "length",
    });
    expect((await collect([chunk({}, "content_filter")])).at(-1)).toEqual({
      type: "finish",
      reason: "content-filter",
    });
  });

  it("throws NetworkError when the stream ends before a finish reason", async () => {
    const events: ProviderEvent[] = [];
    const run = async () => {
      for await (const event of convertOpenAIChatStream({
        chunks: from([chunk({ content: "Half an ans" })]),
        providerId: "openai-chat",
      })) {
        events.push(event);
      }
    };
    await expect(run()).rejects.toSatisfy((error) => NetworkError.isInstance(error));
    expect(events).toEqual([{ type: "text-delta", text: "Half an ans" }]);
  });

  it("throws RefusalError with the refusal text", async () => {
    const run = collect([
      chunk({ refusal: "I can't " }),
      chunk({ refusal: "help with that." }),
      chunk({}, "stop"),
    ]);
    await expect(run).rejects.toSatisfy(
      (error) =>
        RefusalError.isInstance(error) &&
        error.message === "the model refused: I can't help with that.",
    );
  });

  it("throws ProviderServerError on a chunk that is not a chat completion chunk", async () => {
    await expect(collect([{ choices: "nope" }])).rejects.toSatisfy((error) =>
      ProviderServerError.isInstance(error),
    );
  });

  it("tolerates extra and null fields", async () => {
    expect(
      await collect([
        {
          choices: [{ index: 0, delta: null, finish_reason: null, extra: 1 }],
          usage: null,
          vendor: "x",
        },
        {
          choices: [
            { index: 0, delta: { content: "ok", tool_calls: null }, finish_reason: "stop" },
          ],
        },
        {
          choices: [],
          usage: { prompt_tokens: 3, completion_tokens: 1, prompt_tokens_details: null },
        },
      ]),
    ).toEqual([
      { type: "text-delta", text: "ok" },
      {
        type: "usage",
        usage: { inputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 1 },
      },
      { type: "finish", reason: "stop" },
    ]);
  });
});
