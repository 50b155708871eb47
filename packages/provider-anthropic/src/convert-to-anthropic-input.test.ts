import { describe, expect, it } from "vitest";
import { deepFreeze } from "@cursor/run";
import type { JsonValue, ModelAssistantMessage, ModelMessage, ModelToolMessage } from "@cursor/run";
import type { AnthropicContentBlock } from "./anthropic-api.js";
import { convertToAnthropicInput, heldConversionOf } from "./convert-to-anthropic-input.js";

const userText = (
  id: string,
  source: "request-context" | "runtime" | "user" | "summary" | "tail",
  text: string,
): ModelMessage => ({
  role: "user",
  id,
  source,
  content: [{ type: "text", text }],
});
const assistant = (overrides: Partial<ModelAssistantMessage>): ModelAssistantMessage => ({
  role: "assistant",
  id: "assistant:r:0",
  text: "",
  reasoning: "",
  toolCalls: [],
  replay: {},
  ...overrides,
});
const toolResult = (callId: string, content: string): ModelToolMessage => ({
  role: "tool",
  id: `tool-result:${callId}`,
  callId,
  name: "read_file",
  content,
  isError: false,
});

describe("convertToAnthropicInput", () => {
  it("merges consecutive user-side messages into one user message, in canonical order", () => {
    const { messages, warnings } = convertToAnthropicInput([
      userText("summary:0", "summary", "summary"),
      userText("request-context:c", "request-context", "context"),
      userText("runtime:r", "runtime", "query"),
    ]);
    expect(warnings).toEqual([]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "summary" },
          { type: "text", text: "context" },
          { type: "text", text: "query" },
        ],
      },
    ]);
  });

  it("alternates roles, with tool results first in the user message after their calls", () => {
    const { messages } = convertToAnthropicInput([
      userText("runtime:r", "runtime", "query"),
      assistant({
        toolCalls: [
          { index: 0, callId: "c1", name: "read_file", arguments: "{}" },
          { index: 1, callId: "c2", name: "read_file", arguments: '{"path":"a"}' },
        ],
      }),
      toolResult("c1", "one"),
      toolResult("c2", "two"),
      userText("runtime:bg", "runtime", "background done"),
    ]);
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "query" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "c1", name: "read_file", input: {} },
          { type: "tool_use", id: "c2", name: "read_file", input: { path: "a" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c1",
            content: [{ type: "text", text: "one" }],
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "c2",
            content: [{ type: "text", text: "two" }],
            is_error: false,
          },
          { type: "text", text: "background done" },
        ],
      },
    ]);
  });

  it("stays append-only at block level when a later call adds to the last user message", () => {
    const base: ModelMessage[] = [
      userText("runtime:r", "runtime", "query"),
      assistant({ toolCalls: [{ index: 0, callId: "c1", name: "read_file", arguments: "{}" }] }),
      toolResult("c1", "one"),
    ];
    const before = convertToAnthropicInput(base).messages.flatMap(
      (m): AnthropicContentBlock[] => m.content,
    );
    const after = convertToAnthropicInput([
      ...base,
      userText("runtime:bg", "runtime", "background done"),
    ]).messages.flatMap((m): AnthropicContentBlock[] => m.content);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after).toHaveLength(before.length + 1);
  });

  it("drops an assistant message with no content and merges the user messages around it", () => {
    const { messages, warnings } = convertToAnthropicInput([
      userText("runtime:r", "runtime", "query"),
      assistant({ reasoning: "thought elsewhere", replay: { "openai-responses": { id: "rs_1" } } }),
      userText("tail", "tail", "Continue."),
    ]);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "query" },
          { type: "text", text: "Continue." },
        ],
      },
    ]);
    expect(warnings).toEqual([
      { type: "dropped", message: "empty assistant message dropped", path: "messages[1]" },
    ]);
  });

  it("skips user messages that have no sendable content", () => {
    const { messages, warnings } = convertToAnthropicInput([
      userText("runtime:r", "runtime", ""),
      userText("user:u", "user", "hello"),
    ]);
    expect(messages).toEqual([{ role: "user", content: [{ type: "text", text: "hello" }] }]);
    expect(warnings).toEqual([
      { type: "dropped", message: "blank text part dropped", path: "messages[0].content[0]" },
    ]);
  });

  it("leaves out a thinking-only reply whole, so no assistant message ends with thinking", () => {
    // A reply that ran out of output budget while thinking (stop_reason: max_tokens): only its
    // signed thinking is stored. The API refuses an assistant message whose final block is
    // thinking, and the thinking cannot be sent without the message, so the message goes.
    const thinkingOnly = (replayBlocks: JsonValue[], text = "") =>
      assistant({
        text,
        reasoning: "half a plan",
        replay: { anthropic: { blocks: replayBlocks } },
      });
    for (const message of [
      thinkingOnly([{ type: "thinking", thinking: "half a plan", signature: "sig" }]),
      thinkingOnly([
        { type: "thinking", thinking: "half a plan", signature: "sig" },
        { type: "redacted_thinking", data: "opaque" },
      ]),
      thinkingOnly([{ type: "redacted_thinking", data: "opaque" }]),
      // Whitespace-only text is never sent, so this is thinking-only on the wire too.
      thinkingOnly([{ type: "thinking", thinking: "half a plan", signature: "sig" }], "\n"),
    ]) {
      const { messages, warnings } = convertToAnthropicInput([
        userText("runtime:r", "runtime", "query"),
        message,
        userText("runtime:r2", "runtime", "and now?"),
      ]);
      expect(messages).toEqual([
        {
          role: "user",
          content: [
            { type: "text", text: "query" },
            { type: "text", text: "and now?" },
          ],
        },
      ]);
      expect(warnings).toEqual([
        {
          type: "dropped",
          message:
            "assistant message holds only thinking (its output ran out while thinking); left out, since the API refuses an assistant message that ends with a thinking block",
          path: "messages[1]",
        },
      ]);
    }
  });

  it("keeps a thinking reply that has text or a tool call after the thinking", () => {
    const { messages, warnings } = convertToAnthropicInput([
      userText("runtime:r", "runtime", "query"),
      assistant({
        text: "partial answ",
        reasoning: "plan",
        replay: {
          anthropic: { blocks: [{ type: "thinking", thinking: "plan", signature: "sig" }] },
        },
      }),
      userText("tail", "tail", "Continue."),
    ]);
    expect(warnings).toEqual([]);
    expect(messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan", signature: "sig" },
        { type: "text", text: "partial answ" },
      ],
    });
  });

  it("merges consecutive assistant messages into one, as the API would", () => {
    const { messages, warnings } = convertToAnthropicInput([
      userText("runtime:r", "runtime", "query"),
      assistant({ id: "assistant:r:0", text: "First." }),
      assistant({
        id: "assistant:r:1",
        reasoning: "plan",
        replay: {
          anthropic: { blocks: [{ type: "thinking", thinking: "plan", signature: "sig" }] },
        },
        toolCalls: [{ index: 0, callId: "c1", name: "read_file", arguments: "{}" }],
      }),
      toolResult("c1", "one"),
    ]);
    expect(warnings).toEqual([]);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1]!.content.map((block) => block.type)).toEqual([
      "text",
      "thinking",
      "tool_use",
    ]);
  });

  it("converts a frozen message once: later calls share its blocks while merging copies arrays", () => {
    const history = deepFreeze([
      userText("user:1", "user", "Read a.ts."),
      assistant({
        id: "assistant:r:0",
        toolCalls: [{ index: 0, callId: "toolu_1", name: "read_file", arguments: "{}" }],
      }),
      toolResult("toolu_1", "export const a = 1;"),
    ]) as readonly ModelMessage[];
    const first = convertToAnthropicInput(history);
    const longer = deepFreeze([...history, userText("user:2", "user", "Thanks.")]);
    const second = convertToAnthropicInput(longer);
    const blocks = (result: typeof first): readonly unknown[] =>
      result.messages.flatMap((message): readonly unknown[] => message.content);
    blocks(first).forEach((block, index) => expect(blocks(second)[index]).toBe(block));
    // The merged last user message is a new array: the earlier body is unchanged.
    expect(first.messages[2]!.content).toHaveLength(1);
    expect(second.messages[2]!.content).toHaveLength(2);
    expect(Object.isFrozen(blocks(second)[0])).toBe(true);
    const fresh = structuredClone([...longer]) as ModelMessage[];
    expect(JSON.stringify(convertToAnthropicInput(fresh))).toBe(JSON.stringify(second));
  });

  it("holds a converted message without wrapper or warnings list: its side and blocks only", () => {
    const history = deepFreeze([
      userText("user:1", "user", "Read a.ts."),
      toolResult("toolu_9", "export const a = 1;"),
    ]) as readonly ModelMessage[];
    const { messages } = convertToAnthropicInput(history);
    const held = heldConversionOf(history, 1);
    expect(held).toEqual({ side: "user", blocks: [messages[0]!.content[1]] });
    expect((held as { blocks: readonly unknown[] }).blocks[0]).toBe(messages[0]!.content[1]);
  });
});
