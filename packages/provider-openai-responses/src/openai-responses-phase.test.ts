// `phase` (gpt-5.3-codex and later): every assistant output item keeps its own item and its
// phase in the replay state, and goes back exactly so — never merged into one message.
import type { ModelAssistantMessage, ProviderEvent } from "@cursor/run";
import { describe, expect, it } from "vitest";
import {
  phaseFinalAnswerEvents,
  phaseToolRoundEvents,
} from "./__fixtures__/openai-responses-stream-events.js";
import { convertAssistantMessage } from "./convert-openai-responses-assistant-message.js";
import { convertOpenAIResponsesStream } from "./convert-openai-responses-stream.js";
import { createOpenAIResponsesReplayState } from "./openai-responses-replay-state.js";

async function collect(events: readonly unknown[]): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  async function* from() {
    for (const event of events) yield event;
  }
  for await (const event of convertOpenAIResponsesStream(from())) out.push(event);
  return out;
}

/** The assistant message the model loop stores from a stream's events. */
function stored(events: readonly ProviderEvent[]): ModelAssistantMessage {
  let text = "";
  const toolCalls: ModelAssistantMessage["toolCalls"][number][] = [];
  let replay: ModelAssistantMessage["replay"] = {};
  for (const event of events) {
    if (event.type === "text-delta") text += event.text;
    if (event.type === "tool-call") {
      toolCalls.push({
        index: event.index,
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
      });
    }
    if (event.type === "replay") replay = { "openai-responses": event.state };
  }
  return { role: "assistant", id: "assistant:r:0", text, reasoning: "", toolCalls, replay };
}

describe("Responses phase", () => {
  it("keeps each output item and its phase in the replay state, in output order", async () => {
    const events = await collect(phaseToolRoundEvents);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "I'll open " },
      { type: "text-delta", text: "src/a.ts first." },
      // A new message item: its text is a new paragraph of the canonical text.
      { type: "text-delta", text: "\n\n" },
      { type: "text-delta", text: "Then the test." },
    ]);
    expect(events.find((event) => event.type === "replay")).toEqual({
      type: "replay",
      state: {
        items: [
          {
            type: "reasoning",
            id: "rs_fixture_1",
            summary: [{ type: "summary_text", text: "Read the file before editing it." }],
            encrypted_content: "gAAAAABfixture-encrypted-reasoning",
          },
          { type: "message", text: "I'll open src/a.ts first.", phase: "commentary" },
          { type: "function_call", call_id: "call_fixture_1" },
          { type: "message", text: "Then the test.", phase: "commentary" },
        ],
      },
    });
  });

  it("renders every item back exactly, phase included, one input item each", async () => {
    const message = stored(await collect(phaseToolRoundEvents));
    expect(message.text).toBe("I'll open src/a.ts first.\n\nThen the test.");
    const { input, warnings } = convertAssistantMessage({ message, path: "messages[1]" });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(input)).toBe(
      JSON.stringify([
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
      ]),
    );
  });

  it("sends a final answer's phase back", async () => {
    const message = stored(await collect(phaseFinalAnswerEvents));
    expect(convertAssistantMessage({ message, path: "messages[3]" }).input).toEqual([
      {
        type: "message",
        role: "assistant",
        content: "src/a.ts exports nothing.",
        phase: "final_answer",
      },
    ]);
  });

  it("renders the same bytes after a store round trip that sorts keys", async () => {
    const message = stored(await collect(phaseToolRoundEvents));
    const sortKeys = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sortKeys)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([key, inner]) => [key, sortKeys(inner)]),
            )
          : value;
    const reloaded = sortKeys(message) as ModelAssistantMessage;
    expect(JSON.stringify(convertAssistantMessage({ message: reloaded, path: "m" }).input)).toBe(
      JSON.stringify(convertAssistantMessage({ message, path: "m" }).input),
    );
  });

  it("falls back to the plain layout, with a warning, when the state does not describe the message", () => {
    const state = createOpenAIResponsesReplayState([
      { type: "message", text: "something else", phase: "commentary" },
    ]);
    const { input, warnings } = convertAssistantMessage({
      path: "messages[1]",
      message: {
        role: "assistant",
        id: "assistant:r:0",
        text: "the real text",
        reasoning: "",
        toolCalls: [],
        replay: { "openai-responses": state },
      },
    });
    expect(input).toEqual([{ type: "message", role: "assistant", content: "the real text" }]);
    expect(warnings).toEqual([
      {
        type: "dropped",
        message:
          "openai-responses replay items do not match this message (their message texts differ from its text); sent without them",
        path: "messages[1].replay.openai-responses",
      },
    ]);
  });

  it("still reads replay state written before phases were kept (reasoningItems)", () => {
    const { input, warnings } = convertAssistantMessage({
      path: "messages[1]",
      message: {
        role: "assistant",
        id: "assistant:r:0",
        text: "Done.",
        reasoning: "",
        toolCalls: [{ index: 0, callId: "call_1", name: "f", arguments: "{}" }],
        replay: {
          "openai-responses": {
            reasoningItems: [
              { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" },
            ],
          },
        },
      },
    });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(input)).toBe(
      JSON.stringify([
        { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" },
        { type: "message", role: "assistant", content: "Done." },
        { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
      ]),
    );
  });
});
