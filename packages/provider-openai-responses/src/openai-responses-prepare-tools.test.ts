import type { ToolSpec } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { prepareOpenAIResponsesTools } from "./openai-responses-prepare-tools.js";

const closed = { type: "object", properties: {}, required: [], additionalProperties: false };
const tools: ToolSpec[] = [
  { name: "read_file", description: "read", inputSchema: closed },
  { name: "edit_file", description: "edit", inputSchema: { type: "object" } },
  { name: "grep", description: "search", inputSchema: closed },
];

describe("prepareOpenAIResponsesTools", () => {
  it("sends every tool, in order, with strict decided by its schema", () => {
    expect(prepareOpenAIResponsesTools({ tools, allowedTools: undefined })).toEqual({
      tools: [
        {
          type: "function",
          name: "read_file",
          description: "read",
          parameters: closed,
          strict: true,
        },
        {
          type: "function",
          name: "edit_file",
          description: "edit",
          parameters: { type: "object" },
          strict: false,
        },
        { type: "function", name: "grep", description: "search", parameters: closed, strict: true },
      ],
      warnings: [],
    });
  });

  it("restricts with allowed_tools in tool-list order and never changes the list", () => {
    const all = prepareOpenAIResponsesTools({ tools, allowedTools: undefined });
    const restricted = prepareOpenAIResponsesTools({ tools, allowedTools: ["grep", "read_file"] });
    expect(JSON.stringify(restricted.tools)).toBe(JSON.stringify(all.tools));
    expect(restricted.toolChoice).toEqual({
      type: "allowed_tools",
      mode: "auto",
      tools: [
        { type: "function", name: "read_file" },
        { type: "function", name: "grep" },
      ],
    });
    expect(restricted.warnings).toEqual([]);
  });

  it("drops unknown allowed names with a warning; none left means tool_choice none", () => {
    expect(prepareOpenAIResponsesTools({ tools, allowedTools: ["web_search"] })).toEqual({
      tools: expect.any(Array),
      toolChoice: "none",
      warnings: [
        {
          type: "dropped",
          message: "allowed tool web_search is not in the tool list",
          path: "allowedTools[0]",
        },
      ],
    });
    expect(prepareOpenAIResponsesTools({ tools, allowedTools: [] }).toolChoice).toBe("none");
  });

  it("sends neither tools nor a tool choice without tools", () => {
    expect(prepareOpenAIResponsesTools({ tools: [], allowedTools: undefined })).toEqual({
      warnings: [],
    });
    expect(prepareOpenAIResponsesTools({ tools: [], allowedTools: ["x"] })).toEqual({
      warnings: [
        {
          type: "dropped",
          message: "allowed tools x are not in the (empty) tool list",
          path: "allowedTools",
        },
      ],
    });
  });
});
