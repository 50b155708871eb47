import { deepFreeze } from "@cursor/run";
import type { ModelMessage, ModelToolMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import {
  convertToOpenAIResponsesInput,
  heldConversionOf,
} from "./convert-to-openai-responses-input.js";

describe("convertToOpenAIResponsesInput", () => {
  const messages: ModelMessage[] = [
    { role: "user", id: "summary:0", source: "summary", content: [{ type: "text", text: "S" }] },
    {
      role: "assistant",
      id: "assistant:r:0",
      text: "",
      reasoning: "",
      toolCalls: [{ index: 0, callId: "call_1", name: "ls", arguments: "{}" }],
      replay: {},
    },
    {
      role: "tool",
      id: "tool-result:call_1",
      callId: "call_1",
      name: "ls",
      content: "a b",
      isError: false,
    },
    { role: "assistant", id: "assistant:r:1", text: "", reasoning: "", toolCalls: [], replay: {} },
    { role: "user", id: "tail", source: "tail", content: [{ type: "text", text: "Continue." }] },
  ];

  it("concatenates per-message items in message order, with warnings located by index", () => {
    expect(convertToOpenAIResponsesInput(messages)).toEqual({
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "S" }] },
        { type: "function_call", call_id: "call_1", name: "ls", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "a b" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Continue." }] },
      ],
      warnings: [
        {
          type: "dropped",
          message: "assistant message without text or tool calls has no wire form",
          path: "messages[3]",
        },
      ],
    });
  });

  it("converts each message independently, so a longer history extends the input", () => {
    const shorter = convertToOpenAIResponsesInput(messages.slice(0, 3)).input;
    const longer = convertToOpenAIResponsesInput(messages).input;
    expect(longer.slice(0, shorter.length)).toEqual(shorter);
  });

  it("converts a frozen message once: a later call shares its items, frozen, byte for byte", () => {
    const frozen = messages.map((message) => deepFreeze(structuredClone(message)));
    const first = convertToOpenAIResponsesInput(frozen.slice(0, 3));
    const second = convertToOpenAIResponsesInput(frozen);
    expect(second.input.slice(0, first.input.length)).toHaveLength(first.input.length);
    second.input.slice(0, first.input.length).forEach((item, index) => {
      expect(item).toBe(first.input[index]);
    });
    expect(Object.isFrozen(second.input[0])).toBe(true);
    expect(JSON.stringify(second)).toBe(JSON.stringify(convertToOpenAIResponsesInput(messages)));
  });

  it("converts again when a message moves (its warnings name its new index) or is not frozen", () => {
    const frozen = messages.map((message) => deepFreeze(structuredClone(message)));
    convertToOpenAIResponsesInput(frozen);
    // After a compaction the same message can sit at another index.
    const moved = convertToOpenAIResponsesInput(frozen.slice(1));
    expect(moved.warnings.map((warning) => warning.path)).toEqual(["messages[2]"]);
    const open = structuredClone(messages[2]!) as {
      -readonly [K in keyof ModelToolMessage]: ModelToolMessage[K];
    };
    const before = convertToOpenAIResponsesInput([open]).input[0];
    open.content = "changed";
    expect(convertToOpenAIResponsesInput([open]).input[0]).not.toEqual(before);
  });

  it("holds a converted message without wrapper or warnings: its item itself, or one exact list", () => {
    const frozen = messages.map((message) => deepFreeze(structuredClone(message)));
    const twoCalls = deepFreeze({
      role: "assistant",
      id: "assistant:r:2",
      text: "Looking.",
      reasoning: "",
      toolCalls: [
        { index: 0, callId: "call_2", name: "ls", arguments: "{}" },
        { index: 1, callId: "call_3", name: "cat", arguments: "{}" },
      ],
      replay: {},
    } satisfies ModelMessage);
    const sent = [...frozen.slice(0, 3), twoCalls];
    const { input } = convertToOpenAIResponsesInput(sent);
    // One item per message: the memo holds the very item the body holds, nothing around it.
    expect(heldConversionOf(sent, 0)).toBe(input[0]);
    expect(heldConversionOf(sent, 2)).toBe(input[2]);
    // Several: one frozen list of exactly those items.
    const held = heldConversionOf(sent, 3);
    expect(Array.isArray(held)).toBe(true);
    expect(Object.isFrozen(held)).toBe(true);
    expect(held).toHaveLength(3);
    (held as readonly unknown[]).forEach((item, index) => expect(item).toBe(input[3 + index]));
    // A message with warnings keeps them (naming its index) with its items.
    expect(heldConversionOf(frozen, 3)).toBeUndefined();
    convertToOpenAIResponsesInput(frozen);
    expect(heldConversionOf(frozen, 3)).toMatchObject({
      input: [],
      warnings: [{ path: "messages[3]" }],
    });
  });
});
