import { describe, expect, it } from "vitest";
import type { ModelAssistantMessage } from "@cursor/run";
import { convertOpenAIChatAssistantMessage } from "./convert-openai-chat-assistant-message.js";

function assistant(overrides: Partial<ModelAssistantMessage>): ModelAssistantMessage {
  return {
    role: "assistant",
    id: "assistant:run:0",
    text: "",
    reasoning: "",
    toolCalls: [],
    replay: {},
    ...overrides,
  };
}

describe("convertOpenAIChatAssistantMessage", () => {
  it("sends text only, with an empty string rather than null when there are no tool calls", () => {
    expect(
      convertOpenAIChatAssistantMessage({
        message: assistant({ text: "" }),
        path: "messages[1]",
        replayReasoningContent: false,
      }),
    ).toEqual({ message: { role: "assistant", content: "" }, warnings: [] });
  });

  it("sends null content for a tool-only turn and the calls in order with verbatim arguments", () => {
    const { message } = convertOpenAIChatAssistantMessage({
      message: assistant({
        toolCalls: [
          { index: 0, callId: "call_1", name: "a", arguments: '{ "x" : 1 }' },
          { index: 1, callId: "call_2", name: "b", arguments: "" },
        ],
      }),
      path: "messages[1]",
      replayReasoningContent: false,
    });
    expect(message).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "a", arguments: '{ "x" : 1 }' } },
        { id: "call_2", type: "function", function: { name: "b", arguments: "" } },
      ],
    });
  });

  it("replays reasoning_content from this provider's entry only, never the canonical reasoning", () => {
    const fromOtherProvider = assistant({
      text: "ok",
      reasoning: "canonical reasoning text",
      replay: { "openai-responses": { reasoningContent: "not ours" } },
    });
    expect(
      convertOpenAIChatAssistantMessage({
        message: fromOtherProvider,
        path: "messages[1]",
        replayReasoningContent: true,
      }),
    ).toEqual({ message: { role: "assistant", content: "ok" }, warnings: [] });

    const fromThisProvider = assistant({
      text: "ok",
      reasoning: "canonical reasoning text",
      replay: { "openai-chat": { reasoningContent: "thought" } },
    });
    expect(
      convertOpenAIChatAssistantMessage({
        message: fromThisProvider,
        path: "messages[1]",
        replayReasoningContent: true,
      }).message,
    ).toEqual({ role: "assistant", content: "ok", reasoning_content: "thought" });
    expect(
      convertOpenAIChatAssistantMessage({
        message: fromThisProvider,
        path: "messages[1]",
        replayReasoningContent: false,
      }).message,
    ).toEqual({ role: "assistant", content: "ok" });
  });

  it("drops a malformed replay entry with a warning", () => {
    expect(
      convertOpenAIChatAssistantMessage({
        message: assistant({ text: "ok", replay: { "openai-chat": { reasoning: 3 } } }),
        path: "messages[7]",
        replayReasoningContent: true,
      }),
    ).toEqual({
      message: { role: "assistant", content: "ok" },
      warnings: [
        {
          type: "dropped",
          message:
            "the openai-chat replay entry is not {reasoningContent: string}; reasoning not replayed",
          path: "messages[7].replay.openai-chat",
        },
      ],
    });
  });
});
