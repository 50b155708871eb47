import type { ModelAssistantMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { convertAssistantMessage } from "./convert-openai-responses-assistant-message.js";

const reasoningState = {
  reasoningItems: [
    {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "plan" }],
      encrypted_content: "enc_1",
    },
    { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "enc_2" },
  ],
};

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

describe("convertAssistantMessage", () => {
  it("emits reasoning items, then text, then function calls with exact arguments", () => {
    const result = convertAssistantMessage({
      path: "messages[1]",
      message: assistant({
        text: "Reading both.",
        reasoning: "plan",
        toolCalls: [
          { index: 0, callId: "call_a", name: "read_file", arguments: '{"path": "a"}' },
          { index: 1, callId: "call_b", name: "read_file", arguments: '{"path":"b" }' },
        ],
        replay: { "openai-responses": reasoningState },
      }),
    });
    expect(result.warnings).toEqual([]);
    expect(JSON.stringify(result.input)).toBe(
      JSON.stringify([
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "plan" }],
          encrypted_content: "enc_1",
        },
        { type: "reasoning", id: "rs_2", summary: [], encrypted_content: "enc_2" },
        { type: "message", role: "assistant", content: "Reading both." },
        { type: "function_call", call_id: "call_a", name: "read_file", arguments: '{"path": "a"}' },
        { type: "function_call", call_id: "call_b", name: "read_file", arguments: '{"path":"b" }' },
      ]),
    );
  });

  it("replays the same bytes when the stored state comes back with sorted keys", () => {
    const sorted = JSON.parse(
      '{"reasoningItems":[{"encrypted_content":"enc_1","id":"rs_1","summary":[{"text":"plan","type":"summary_text"}],"type":"reasoning"},{"encrypted_content":"enc_2","id":"rs_2","summary":[],"type":"reasoning"}]}',
    );
    const text = { text: "done" };
    const a = convertAssistantMessage({
      path: "m",
      message: assistant({ ...text, replay: { "openai-responses": reasoningState } }),
    });
    const b = convertAssistantMessage({
      path: "m",
      message: assistant({ ...text, replay: { "openai-responses": sorted } }),
    });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("ignores other providers' replay state and plain reasoning text", () => {
    const result = convertAssistantMessage({
      path: "messages[0]",
      message: assistant({
        text: "hi",
        reasoning: "thought about it",
        replay: { anthropic: { thinking: "sig" }, "openai-chat": { reasoning_content: "x" } },
      }),
    });
    expect(result).toEqual({
      input: [{ type: "message", role: "assistant", content: "hi" }],
      warnings: [],
    });
  });

  it("sends tool calls without a message when there is no text, mapping long ids", () => {
    const longId = `toolu_${"b".repeat(64)}`;
    const result = convertAssistantMessage({
      path: "messages[0]",
      message: assistant({
        toolCalls: [{ index: 0, callId: longId, name: "ls", arguments: "{}" }],
      }),
    });
    expect(result.input).toEqual([
      {
        type: "function_call",
        call_id: expect.stringMatching(/^call_[0-9a-f]{48}$/),
        name: "ls",
        arguments: "{}",
      },
    ]);
  });

  it("drops unreadable own replay state with a warning and keeps the rest", () => {
    const result = convertAssistantMessage({
      path: "messages[2]",
      message: assistant({ text: "ok", replay: { "openai-responses": { items: "none" } } }),
    });
    expect(result.input).toEqual([{ type: "message", role: "assistant", content: "ok" }]);
    expect(result.warnings).toEqual([
      {
        type: "dropped",
        message:
          "replay state is not openai-responses reasoning state (items: Invalid input: expected array, received string)",
        path: "messages[2].replay.openai-responses",
      },
    ]);
  });

  it("drops an empty turn as a whole, reasoning included (the API refuses dangling reasoning)", () => {
    const result = convertAssistantMessage({
      path: "messages[3]",
      message: assistant({ replay: { "openai-responses": reasoningState } }),
    });
    expect(result).toEqual({
      input: [],
      warnings: [
        {
          type: "dropped",
          message: "assistant message without text or tool calls has no wire form",
          path: "messages[3]",
        },
      ],
    });
  });
});
