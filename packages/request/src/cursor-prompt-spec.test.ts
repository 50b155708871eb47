import { describe, expect, it } from "vitest";
import { loadAgentRunRequest } from "./__fixtures__/load-fixture.js";
import { agentModes } from "./agent-run-request-schema.js";
import { allowedToolsForMode, createCursorPromptSpec } from "./cursor-prompt-spec.js";
import { RequestValidationError, ToolNameCollisionError } from "./errors.js";
import type { McpServerInput } from "./request-context-schema.js";

const fixedNames = [
  "read_file",
  "list_directory",
  "glob",
  "grep",
  "write_file",
  "edit_file",
  "delete_file",
  "shell",
  "read_lints",
  "todo_write",
  "ask_question",
  "web_search",
  "web_fetch",
  "run_subagent",
  "create_plan",
];

function fixtureServers(): McpServerInput[] {
  return loadAgentRunRequest().requestContext.mcp?.servers ?? [];
}

describe("createCursorPromptSpec", () => {
  it("gives the fixed catalog, then the MCP tools sorted by exposed name", () => {
    const spec = createCursorPromptSpec({ mcpServers: fixtureServers() });
    expect(spec.tools.map((tool) => tool.name)).toEqual([
      ...fixedNames,
      "mcp__issue_tracker__get_issue_7528b188",
      "mcp__postgres__list_tables",
      "mcp__postgres__query",
    ]);
    expect(spec.tools.at(-1)).toEqual({
      name: "mcp__postgres__query",
      description: "Runs a read-only SQL query and returns the rows as JSON.",
      inputSchema: {
        properties: {
          limit: { minimum: 1, type: "integer" },
          sql: { description: "The SQL text.", type: "string" },
        },
        required: ["sql"],
        type: "object",
      },
    });
    expect(Object.isFrozen(spec)).toBe(true);
  });

  it("is one spec for every mode and independent of how servers and tools are listed", () => {
    const servers = fixtureServers();
    const reversed = [...servers]
      .reverse()
      .map((server) => ({ ...server, tools: [...(server.tools ?? [])].reverse() }));
    const spec = createCursorPromptSpec({ mcpServers: servers });
    expect(createCursorPromptSpec({ mcpServers: reversed })).toEqual(spec);
    expect(createCursorPromptSpec({ mcpServers: servers }).digest).toBe(spec.digest);
  });

  it("substitutes the model's display name into the instructions", () => {
    const named = createCursorPromptSpec({ modelDisplayName: "Claude Sonnet 4.5" });
    expect(named.instructions).toMatch(
      /^You are an AI coding assistant powered by Claude Sonnet 4\.5\. /,
    );
    const unnamed = createCursorPromptSpec();
    expect(unnamed.instructions).toMatch(
      /^You are an AI coding assistant powered by a large language model\. /,
    );
    expect(unnamed.instructions).not.toMatch(/[{}]/);
    expect(named.digest).not.toBe(unnamed.digest);
    expect(unnamed.tools.map((tool) => tool.name)).toEqual(fixedNames);
  });

  it("throws a typed error when two MCP tools would share a name", () => {
    const call = () =>
      createCursorPromptSpec({
        mcpServers: [
          { name: "a", tools: [{ name: "b__c", inputSchema: {} }] },
          { name: "a__b", tools: [{ name: "c", inputSchema: {} }] },
        ],
      });
    expect(call).toThrow(ToolNameCollisionError);
    try {
      call();
    } catch (error) {
      expect(ToolNameCollisionError.isInstance(error)).toBe(true);
      if (!ToolNameCollisionError.isInstance(error)) return;
      expect(error.name).toBe("ToolNameCollisionError");
      expect(error.toolName).toBe("mcp__a__b__c");
      expect(error.sources).toEqual(['MCP server "a" tool "b__c"', 'MCP server "a__b" tool "c"']);
    }
  });

  it("rejects invalid input", () => {
    expect(() => createCursorPromptSpec({ modelDisplayName: "a\nb" })).toThrow(
      RequestValidationError,
    );
  });
});

const askTools = [
  "read_file",
  "list_directory",
  "glob",
  "grep",
  "read_lints",
  "ask_question",
  "web_search",
  "web_fetch",
];

describe("allowedToolsForMode", () => {
  const spec = createCursorPromptSpec({ mcpServers: fixtureServers() });
  const mcp = spec.tools.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));

  it("lets agent and debug call every tool but create_plan, MCP tools included", () => {
    const expected = [...fixedNames.filter((name) => name !== "create_plan"), ...mcp];
    expect(allowedToolsForMode("agent", spec)).toEqual(expected);
    expect(allowedToolsForMode("debug", spec)).toEqual(expected);
  });

  it("keeps ask and plan read-only, without MCP tools", () => {
    expect(allowedToolsForMode("ask", spec)).toEqual(askTools);
    expect(allowedToolsForMode("plan", spec)).toEqual([
      "read_file",
      "list_directory",
      "glob",
      "grep",
      "read_lints",
      "todo_write",
      "ask_question",
      "web_search",
      "web_fetch",
      "create_plan",
    ]);
  });

  it("only ever names tools of the spec, in the spec's order", () => {
    const names = spec.tools.map((tool) => tool.name);
    for (const mode of agentModes) {
      const allowed = allowedToolsForMode(mode, spec);
      expect(allowed.length).toBeGreaterThan(0);
      expect(allowed).toEqual(names.filter((name) => allowed.includes(name)));
    }
  });

  it("rejects an unknown mode", () => {
    expect(() => allowedToolsForMode("chat" as "agent", spec)).toThrow(RequestValidationError);
  });

  it("hands out a fresh list each call: changing one never changes the next", () => {
    const first = allowedToolsForMode("ask", spec);
    first.push("shell");
    first.splice(0, 1);
    expect(allowedToolsForMode("ask", spec)).toEqual(askTools);
  });

  it("reads a spec that is not frozen every time", () => {
    const open = { ...spec, tools: [...spec.tools] };
    expect(allowedToolsForMode("agent", open)).not.toContain("ping");
    open.tools.push({ name: "ping", description: "", inputSchema: { type: "object" } });
    expect(allowedToolsForMode("agent", open)).toContain("ping");
    expect(allowedToolsForMode("ask", open)).not.toContain("ping");
  });
});
