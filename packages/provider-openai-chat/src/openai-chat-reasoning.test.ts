// Reasoning from OpenAI-compatible servers in every documented shape, parsed into reasoning
// deltas (and the replay entry); unknown shapes are warnings, never a crash or a retry.
import { describe, expect, it } from "vitest";
import type { ProviderEvent } from "@cursor/run";
import {
  contentPartChunks,
  deltaReasoningChunks,
  reasoningAndDetailsChunks,
  reasoningContentChunks,
  reasoningDetailsChunks,
  unknownReasoningChunks,
} from "./__fixtures__/reasoning-chunks.js";
import { convertOpenAIChatStream } from "./convert-openai-chat-stream.js";

async function collect(chunks: readonly unknown[]): Promise<ProviderEvent[]> {
  async function* from() {
    for (const item of chunks) yield item;
  }
  const events: ProviderEvent[] = [];
  for await (const event of convertOpenAIChatStream({
    chunks: from(),
    providerId: "openai-chat",
  })) {
    events.push(event);
  }
  return events;
}

const reasoningOf = (events: readonly ProviderEvent[]) =>
  events.flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : [])).join("");
const textOf = (events: readonly ProviderEvent[]) =>
  events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");

describe("openai-chat reasoning shapes", () => {
  it.each([
    ["delta.reasoning (vLLM, OpenRouter, Ollama)", deltaReasoningChunks],
    ["delta.reasoning_content (DeepSeek)", reasoningContentChunks],
    ["content parts with thinking parts (Mistral)", contentPartChunks],
    ["reasoning_details parts (OpenRouter)", reasoningDetailsChunks],
  ])("%s", async (_name, chunks) => {
    const events = await collect(chunks);
    expect(reasoningOf(events)).toBe("Check the imports first.");
    expect(textOf(events)).toBe("The import is missing.");
    expect(events.filter((event) => event.type === "warning")).toEqual([]);
    expect(events.find((event) => event.type === "replay")).toEqual({
      type: "replay",
      state: { reasoningContent: "Check the imports first." },
    });
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });

  it("counts reasoning sent both as `reasoning` and as `reasoning_details` once", async () => {
    expect(reasoningOf(await collect(reasoningAndDetailsChunks))).toBe("Check the imports first.");
  });

  it("reports unknown shapes as warnings (once each) and still streams the answer", async () => {
    const events = await collect(unknownReasoningChunks);
    expect(textOf(events)).toBe("The import is missing.");
    expect(reasoningOf(events)).toBe("");
    expect(events.filter((event) => event.type === "warning")).toEqual([
      {
        type: "warning",
        warning: {
          type: "unsupported",
          message: "delta.reasoning is neither text nor reasoning parts; ignored",
          path: "choices[0].delta.reasoning",
        },
      },
      {
        type: "warning",
        warning: {
          type: "unsupported",
          message: 'content part of type "audio" ignored',
          path: "choices[0].delta.content",
        },
      },
      {
        type: "warning",
        warning: {
          type: "unsupported",
          message: "delta.content is neither text nor content parts; ignored",
          path: "choices[0].delta.content",
        },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
  });
});
