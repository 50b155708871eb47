import { describe, expect, it } from "vitest";
import { deepFreeze } from "@cursor/run";
import type { AnthropicMessage, AnthropicTextBlock, AnthropicTool } from "./anthropic-api.js";
import {
  applyAnthropicCacheHints,
  maxAnthropicCacheMarkers,
  planAnthropicCacheMarkers,
} from "./anthropic-cache-hints.js";

const tools: AnthropicTool[] = [
  { name: "a", description: "A", input_schema: { type: "object" } },
  { name: "b", description: "B", input_schema: { type: "object" } },
];
const system: AnthropicTextBlock[] = [{ type: "text", text: "instructions" }];
const text = (value: string): AnthropicTextBlock => ({ type: "text", text: value });
const user = (...values: string[]): AnthropicMessage => ({
  role: "user",
  content: values.map(text),
});
const assistantCalling = (id: string): AnthropicMessage => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "t", signature: "s" },
    { type: "tool_use", id, name: "a", input: {} },
  ],
});
const result = (id: string): AnthropicMessage => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, is_error: false }],
});

describe("planAnthropicCacheMarkers", () => {
  it("marks the last tool, the system block and the newest block", () => {
    expect(planAnthropicCacheMarkers({ tools, system, messages: [user("q1", "q2")] })).toEqual([
      { kind: "tool", index: 1 },
      { kind: "system", index: 0 },
      { kind: "message", messageIndex: 0, blockIndex: 1 },
    ]);
  });

  it("adds the previous call's newest block, before the newest assistant message", () => {
    const messages = [user("q1"), assistantCalling("t1"), result("t1")];
    expect(planAnthropicCacheMarkers({ tools, system, messages })).toEqual([
      { kind: "tool", index: 1 },
      { kind: "system", index: 0 },
      { kind: "message", messageIndex: 2, blockIndex: 0 },
      { kind: "message", messageIndex: 0, blockIndex: 0 },
    ]);
  });

  it("never marks a thinking block", () => {
    const messages: AnthropicMessage[] = [
      user("q1"),
      { role: "assistant", content: [text("answer"), { type: "redacted_thinking", data: "x" }] },
    ];
    expect(planAnthropicCacheMarkers({ tools: [], system, messages })).toEqual([
      { kind: "system", index: 0 },
      { kind: "message", messageIndex: 1, blockIndex: 0 },
      { kind: "message", messageIndex: 0, blockIndex: 0 },
    ]);
  });

  it("places nothing on an empty prefix", () => {
    expect(planAnthropicCacheMarkers({ tools: [], system: [], messages: [] })).toEqual([]);
  });

  it("never plans more than four markers, however long the history", () => {
    const messages: AnthropicMessage[] = [];
    for (let round = 0; round < 30; round += 1) {
      messages.push(user(`q${round}`, "more"), assistantCalling(`t${round}`));
    }
    messages.push(result("t29"));
    const positions = planAnthropicCacheMarkers({ tools, system, messages });
    expect(positions).toHaveLength(maxAnthropicCacheMarkers);
    const {
      tools: t,
      system: s,
      messages: m,
    } = applyAnthropicCacheHints({
      tools,
      system,
      messages,
    });
    const marked = JSON.stringify({ t, s, m }).match(/"cache_control"/g) ?? [];
    expect(marked).toHaveLength(4);
  });
});

describe("applyAnthropicCacheHints", () => {
  it("adds cache_control as the last key of the marked blocks, with the TTL", () => {
    const messages = [user("q1"), assistantCalling("t1"), result("t1")];
    const marked = applyAnthropicCacheHints({ tools, system, messages, ttl: "1h" });
    const marker = { type: "ephemeral", ttl: "1h" };
    expect(marked.tools[1]).toEqual({ ...tools[1], cache_control: marker });
    expect(Object.keys(marked.tools[1]!)).toEqual([
      "name",
      "description",
      "input_schema",
      "cache_control",
    ]);
    expect(marked.system).toEqual([{ type: "text", text: "instructions", cache_control: marker }]);
    expect(marked.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q1", cache_control: marker }] },
      messages[1],
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", is_error: false, cache_control: marker },
        ],
      },
    ]);
    // Unmarked entries are shared, not copied.
    expect(marked.tools[0]).toBe(tools[0]);
    expect(marked.messages[1]).toBe(messages[1]);
  });

  it("does not change its input", () => {
    const messages = deepFreeze([user("q1"), assistantCalling("t1"), result("t1")]);
    const before = JSON.stringify(messages);
    applyAnthropicCacheHints({ tools: deepFreeze(tools), system: deepFreeze(system), messages });
    expect(JSON.stringify(messages)).toBe(before);
  });

  it("moves the newest marker forward and keeps the previous one readable after a big append", () => {
    const turnOne = [user("q1"), assistantCalling("t1"), result("t1")];
    // A round that appends 25 blocks: more than the API's 20-position lookback.
    const manyResults: AnthropicMessage = {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t2", is_error: false },
        ...Array.from({ length: 24 }, (_, index) => text(`background ${index}`)),
      ],
    };
    const turnTwo = [...turnOne, assistantCalling("t2"), manyResults];
    const first = applyAnthropicCacheHints({ tools, system, messages: turnOne }).messages;
    const second = applyAnthropicCacheHints({ tools, system, messages: turnTwo }).messages;
    // Turn 1's newest block (the t1 result) carried the marker; turn 2 marks its own newest
    // block and still marks the t1 result exactly, so the entry written there is read back.
    expect(first[2]!.content[0]).toHaveProperty("cache_control");
    expect(second[4]!.content[24]).toHaveProperty("cache_control");
    expect(second[2]!.content[0]).toHaveProperty("cache_control");
    expect(second[0]!.content[0]).not.toHaveProperty("cache_control");
  });
});
