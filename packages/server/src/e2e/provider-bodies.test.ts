import { describe, expect, it } from "vitest";
import { historyItems, prefixViolations, staticParts } from "./provider-bodies.js";

// The checker the end-to-end suites rely on must itself catch what it is there to catch.
describe("prefixViolations", () => {
  const responses = (input: unknown[], instructions = "be brief") => ({
    model: "gpt-5",
    instructions,
    tools: [{ type: "function", name: "read_file" }],
    input,
  });

  it("accepts a chain of appends", () => {
    expect(
      prefixViolations("openai-responses", [
        responses([{ role: "user", content: "a" }]),
        responses([{ role: "user", content: "a" }, { type: "function_call" }]),
      ]),
    ).toEqual([]);
  });

  it("names an edited item, a removed item, a key-order change and changed instructions", () => {
    const first = responses([
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
    expect(
      prefixViolations("openai-responses", [
        first,
        responses([
          { role: "user", content: "a" },
          { role: "user", content: "B" },
        ]),
      ]),
    ).toEqual(['body 1: history item 1 changed: items[1].content (value): "b" → "B"']);
    expect(
      prefixViolations("openai-responses", [first, responses([{ role: "user", content: "a" }])]),
    ).toEqual(["body 1: 1 history items, fewer than the 2 before"]);
    expect(
      prefixViolations("openai-responses", [
        first,
        responses([
          { role: "user", content: "a" },
          { content: "b", role: "user" },
        ]),
      ]),
    ).toHaveLength(1);
    expect(
      prefixViolations("openai-responses", [
        first,
        responses(
          [
            { role: "user", content: "a" },
            { role: "user", content: "b" },
          ],
          "be verbose",
        ),
      ]),
    ).toEqual(['body 1: static parts changed: instructions (value): "be brief" → "be verbose"']);
  });

  it("ignores where Anthropic cache markers sit, nothing else", () => {
    const body = (marked: number, text = "b") => ({
      model: "claude",
      max_tokens: 100,
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      tools: [{ name: "read_file", input_schema: {} }],
      messages: [
        {
          role: "user",
          content: [
            {
              type: "text",
              text: "a",
              ...(marked === 0 ? { cache_control: { type: "ephemeral" } } : {}),
            },
            {
              type: "text",
              text,
              ...(marked === 1 ? { cache_control: { type: "ephemeral" } } : {}),
            },
          ],
        },
      ],
    });
    expect(historyItems("anthropic", body(0))).toEqual([
      { role: "user", block: { type: "text", text: "a" } },
      { role: "user", block: { type: "text", text: "b" } },
    ]);
    expect(staticParts("anthropic", body(0))).toEqual({
      system: [{ type: "text", text: "sys" }],
      tools: [{ name: "read_file", input_schema: {} }],
    });
    expect(prefixViolations("anthropic", [body(0), body(1)])).toEqual([]);
    expect(prefixViolations("anthropic", [body(0), body(1, "c")])).toEqual([
      'body 1: history item 1 changed: items[1].block.text (value): "b" → "c"',
    ]);
  });
});
