import { describe, expect, it } from "vitest";
import {
  renderAnthropicSegments,
  renderOpenAIChatSegments,
  renderOpenAIResponsesSegments,
} from "./prompt-segments.js";
import { countTokens } from "./token-count.js";

describe("prompt segments", () => {
  it("renders Responses bodies as tools, schema, instructions, then input items, in received key order", () => {
    const body = JSON.parse(
      '{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call_output","output":"x","call_id":"c"}],' +
        '"instructions":"be brief","text":{"format":{"type":"json_schema","name":"s","schema":{}}},"tools":[{"type":"function","name":"f"}]}',
    );
    const segments = renderOpenAIResponsesSegments(body);
    expect(segments.map((s) => [s.label, s.path, s.bytes])).toEqual([
      ["tools", "tools", '[{"type":"function","name":"f"}]'],
      ["schema", "text.format", '{"type":"json_schema","name":"s","schema":{}}'],
      ["instructions", "instructions", '"be brief"'],
      ["input item 0", "input[0]", '{"role":"user","content":"hi"}'],
      ["input item 1", "input[1]", '{"type":"function_call_output","output":"x","call_id":"c"}'],
    ]);
    expect(segments[3]!.tokens).toBe(countTokens('{"role":"user","content":"hi"}'));
    expect(
      renderOpenAIResponsesSegments({ model: "m", input: "hello" }).map((s) => s.path),
    ).toEqual(["input"]);
  });

  it("labels Chat system messages", () => {
    const segments = renderOpenAIChatSegments({
      model: "m",
      messages: [
        { role: "system", content: "rules" },
        { role: "user", content: "hi" },
      ],
    });
    expect(segments.map((s) => s.label)).toEqual(["system (message 0)", "message 1"]);
  });

  it("renders Anthropic blocks without cache_control, with markers, run types and the automatic marker", () => {
    const { segments, markerCount } = renderAnthropicSegments({
      model: "m",
      cache_control: { type: "ephemeral" },
      tools: [{ name: "t", cache_control: { type: "ephemeral", ttl: "1h" }, input_schema: {} }],
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "t", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "u1",
              content: [{ type: "text", text: "r", cache_control: { type: "ephemeral" } }],
            },
          ],
        },
      ],
    });
    expect(markerCount).toBe(4);
    expect(segments.map((s) => [s.label, s.bytes, s.blockType, s.marker])).toEqual([
      ["tool 0", '{"name":"t","input_schema":{}}', "tool", { ttlMs: 3_600_000 }],
      ["system block 0", '{"type":"text","text":"sys"}', "system", {}],
      ["message 0", 'user:{"type":"text","text":"hi"}', "text", undefined],
      [
        "message 1 block 0",
        'assistant:{"type":"tool_use","id":"u1","name":"t","input":{}}',
        "tool_use",
        undefined,
      ],
      [
        "message 2 block 0",
        'user:{"type":"tool_result","tool_use_id":"u1","content":[{"type":"text","text":"r"}]}',
        "tool_result",
        {},
      ],
    ]);
  });
});
