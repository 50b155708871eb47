import { describe, expect, it } from "vitest";
import { deepFreeze } from "@cursor/run";
import type { ToolSpec } from "@cursor/run";
import { prepareOpenAIChatTools } from "./openai-chat-prepare-tools.js";

const tools: ToolSpec[] = [
  { name: "read", description: "Read.", inputSchema: { type: "object" } },
  { name: "write", description: "Write.", inputSchema: { type: "object" } },
  { name: "mcp_search", description: "Search.", inputSchema: { type: "object" } },
];

const functionTools = tools.map((tool) => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
}));

describe("prepareOpenAIChatTools", () => {
  it("sends every tool as a function tool and no tool_choice without a restriction", () => {
    expect(prepareOpenAIChatTools({ tools })).toEqual({ tools: functionTools, warnings: [] });
  });

  it("restricts with allowed_tools in catalog order, keeping the full tool list", () => {
    const forward = prepareOpenAIChatTools({ tools, allowedTools: ["mcp_search", "read"] });
    const reversed = prepareOpenAIChatTools({ tools, allowedTools: ["read", "mcp_search"] });
    expect(forward).toEqual({
      tools: functionTools,
      toolChoice: {
        type: "allowed_tools",
        allowed_tools: {
          mode: "auto",
          tools: [
            { type: "function", function: { name: "read" } },
            { type: "function", function: { name: "mcp_search" } },
          ],
        },
      },
      warnings: [],
    });
    expect(JSON.stringify(reversed)).toBe(JSON.stringify(forward));
  });

  it("turns an empty permitted set into tool_choice none and warns about unknown names", () => {
    expect(prepareOpenAIChatTools({ tools, allowedTools: ["delete"] })).toEqual({
      tools: functionTools,
      toolChoice: "none",
      warnings: [
        {
          type: "dropped",
          message: "allowed tool delete is not in the tool catalog",
          path: "allowedTools[0]",
        },
      ],
    });
  });

  it("sends nothing without tools (the API rejects an empty list)", () => {
    expect(prepareOpenAIChatTools({ tools: [], allowedTools: [] })).toEqual({ warnings: [] });
  });

  it("converts a frozen tool once and shares its wire form; an unfrozen one every time", () => {
    const frozen = deepFreeze(structuredClone(tools));
    const first = prepareOpenAIChatTools({ tools: frozen }).tools!;
    const second = prepareOpenAIChatTools({ tools: frozen }).tools!;
    first.forEach((tool, index) => expect(second[index]).toBe(tool));
    expect(Object.isFrozen(first[0]!.function)).toBe(true);
    expect(first).toEqual(functionTools);
    const open = structuredClone(tools);
    const a = prepareOpenAIChatTools({ tools: open }).tools!;
    (open[0] as { description: string }).description = "Read a file.";
    const b = prepareOpenAIChatTools({ tools: open }).tools!;
    expect(b[0]!.function.description).toBe("Read a file.");
    expect(a[0]).not.toBe(b[0]);
    expect(Object.isFrozen(open[0]!.inputSchema)).toBe(false);
  });
});
