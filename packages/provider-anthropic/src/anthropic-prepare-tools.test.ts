import { deepFreeze } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { prepareAnthropicTools } from "./anthropic-prepare-tools.js";

describe("prepareAnthropicTools", () => {
  it("keeps prompt-spec order and each schema's key order", () => {
    const { tools, warnings } = prepareAnthropicTools({
      tools: [
        {
          name: "b_tool",
          description: "B",
          inputSchema: { properties: { x: { type: "number" } }, type: "object" },
        },
        { name: "a_tool", description: "A", inputSchema: { type: "object" } },
      ],
    });
    expect(warnings).toEqual([]);
    expect(JSON.stringify(tools)).toBe(
      JSON.stringify([
        {
          name: "b_tool",
          description: "B",
          input_schema: { properties: { x: { type: "number" } }, type: "object" },
        },
        { name: "a_tool", description: "A", input_schema: { type: "object" } },
      ]),
    );
  });

  it("adds type object to a schema without a type", () => {
    const { tools } = prepareAnthropicTools({
      tools: [{ name: "noop", description: "", inputSchema: {} }],
    });
    expect(tools).toEqual([{ name: "noop", description: "", input_schema: { type: "object" } }]);
  });

  it("replaces a non-object schema with a warning", () => {
    const { tools, warnings } = prepareAnthropicTools({
      tools: [{ name: "s", description: "S", inputSchema: { type: "string" } }],
    });
    expect(tools).toEqual([{ name: "s", description: "S", input_schema: { type: "object" } }]);
    expect(warnings).toEqual([
      {
        type: "unsupported",
        message:
          'tool input schema of type "string" is not an object schema; sent as {"type":"object"}',
        path: "tools[0].inputSchema",
      },
    ]);
  });

  it("converts a frozen tool once per place, and an unfrozen one every time", () => {
    const text = deepFreeze({ name: "s", description: "S", inputSchema: { type: "string" } });
    const read = deepFreeze({ name: "r", description: "R", inputSchema: { type: "object" } });
    const first = prepareAnthropicTools({ tools: [read, text] });
    const second = prepareAnthropicTools({ tools: [read, text] });
    expect(second.tools[0]).toBe(first.tools[0]);
    expect(second.tools[1]).toBe(first.tools[1]);
    expect(second.warnings.map((warning) => warning.path)).toEqual(["tools[1].inputSchema"]);
    // At another index its warning names that index.
    expect(prepareAnthropicTools({ tools: [text] }).warnings.map((w) => w.path)).toEqual([
      "tools[0].inputSchema",
    ]);
    const open = { name: "o", description: "O", inputSchema: { type: "object" } };
    const before = prepareAnthropicTools({ tools: [open] }).tools[0];
    open.description = "Other";
    expect(prepareAnthropicTools({ tools: [open] }).tools[0]).toEqual({
      name: "o",
      description: "Other",
      input_schema: { type: "object" },
    });
    expect(before?.description).toBe("O");
    expect(Object.isFrozen(open.inputSchema)).toBe(false);
  });
});
