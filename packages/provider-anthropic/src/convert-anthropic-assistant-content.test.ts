import { describe, expect, it } from "vitest";
import type { ModelAssistantMessage } from "@cursor/run";
import { toAnthropicToolCallId } from "./anthropic-tool-call-id.js";
import { convertAnthropicAssistantContent } from "./convert-anthropic-assistant-content.js";

const assistant = (overrides: Partial<ModelAssistantMessage>): ModelAssistantMessage => ({
  role: "assistant",
  id: "assistant:r:0",
  text: "",
  reasoning: "",
  toolCalls: [],
  replay: {},
  ...overrides,
});

describe("convertAnthropicAssistantContent", () => {
  it("replays thinking blocks verbatim, then text, then tool_use blocks in index order", () => {
    const { blocks, warnings } = convertAnthropicAssistantContent({
      path: "messages[1]",
      message: assistant({
        text: "Looking.",
        reasoning: "plan",
        toolCalls: [
          { index: 0, callId: "toolu_1", name: "read_file", arguments: '{"path":"a","n":2}' },
          { index: 1, callId: "fc:2", name: "run_command", arguments: '{"command":"ls"}' },
        ],
        replay: {
          anthropic: {
            blocks: [
              { signature: "sig", thinking: "plan", type: "thinking" },
              { type: "redacted_thinking", data: "opaque" },
              { type: "thinking", thinking: "more", signature: "sig2" },
            ],
          },
        },
      }),
    });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(blocks)).toBe(
      JSON.stringify([
        { type: "thinking", thinking: "plan", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
        { type: "thinking", thinking: "more", signature: "sig2" },
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a", n: 2 } },
        {
          type: "tool_use",
          id: toAnthropicToolCallId("fc:2"),
          name: "run_command",
          input: { command: "ls" },
        },
      ]),
    );
    expect(toAnthropicToolCallId("fc:2")).toMatch(/^fc_2_[0-9a-f]{12}$/);
  });

  it("replays nothing from another provider's state or from the reasoning text", () => {
    const { blocks, warnings } = convertAnthropicAssistantContent({
      path: "messages[1]",
      message: assistant({
        text: "Answer.",
        reasoning: "private chain of thought",
        replay: { "openai-responses": { items: [] } },
      }),
    });
    expect(warnings).toEqual([]);
    expect(blocks).toEqual([{ type: "text", text: "Answer." }]);
  });

  it("leaves out whitespace-only text before a tool call", () => {
    const { blocks, warnings } = convertAnthropicAssistantContent({
      path: "messages[1]",
      message: assistant({
        text: "\n\n",
        toolCalls: [{ index: 0, callId: "toolu_1", name: "read_file", arguments: "{}" }],
      }),
    });
    expect(warnings).toEqual([]);
    expect(blocks).toEqual([{ type: "tool_use", id: "toolu_1", name: "read_file", input: {} }]);
  });

  it("drops malformed replay state with a warning", () => {
    const { blocks, warnings } = convertAnthropicAssistantContent({
      path: "messages[3]",
      message: assistant({
        text: "Answer.",
        replay: { anthropic: { blocks: [{ type: "thinking", thinking: "no signature" }] } },
      }),
    });
    expect(blocks).toEqual([{ type: "text", text: "Answer." }]);
    expect(warnings).toEqual([
      {
        type: "dropped",
        message: "malformed anthropic replay state; thinking blocks not replayed",
        path: "messages[3].replay.anthropic",
      },
    ]);
  });

  it("replays invalid argument JSON as {} with a warning, the same way every time", () => {
    const message = assistant({
      toolCalls: [{ index: 0, callId: "toolu_1", name: "read_file", arguments: '{"path":' }],
    });
    const first = convertAnthropicAssistantContent({ path: "messages[1]", message });
    const second = convertAnthropicAssistantContent({ path: "messages[1]", message });
    expect(first).toEqual({
      blocks: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: {} }],
      warnings: [
        {
          type: "other",
          message: "tool call arguments are not valid JSON; replayed as {}",
          path: "messages[1].toolCalls[0].arguments",
        },
      ],
    });
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
  });
});
