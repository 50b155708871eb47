import type { JsonObject } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { cursorPrompts } from "./cursor-prompts.js";
import { PromptAssetError } from "./errors.js";
import { parseToolCatalog } from "./tool-catalog.js";

const file = "prompt/cursor/tools.md";

function section(name: string, modes: string, schema: string, description = "Does it."): string {
  return `## ${name}\n\nmodes: ${modes}\n\n${description}\n\n\`\`\`json\n${schema}\n\`\`\`\n`;
}

const objectSchema = '{ "type": "object", "properties": {} }';

function catalogError(source: string): PromptAssetError {
  try {
    parseToolCatalog({ file, source });
  } catch (error) {
    if (PromptAssetError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the catalog to be rejected");
}

describe("the fixed tool catalog (prompt/cursor/tools.md)", () => {
  const tools = cursorPrompts.tools;

  it("lists a coding agent's tools in a fixed order", () => {
    expect(tools.map((tool) => tool.name)).toEqual([
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
    ]);
  });

  it("gives every mode its tools", () => {
    const byMode = (mode: "agent" | "ask" | "plan" | "debug") =>
      tools.filter((tool) => tool.modes.includes(mode)).map((tool) => tool.name);
    const readOnly = ["read_file", "list_directory", "glob", "grep", "read_lints"];
    const changing = ["write_file", "edit_file", "delete_file", "shell"];
    expect(byMode("ask")).toEqual([...readOnly, "ask_question", "web_search", "web_fetch"]);
    expect(byMode("plan")).toEqual([
      ...readOnly,
      "todo_write",
      "ask_question",
      "web_search",
      "web_fetch",
      "create_plan",
    ]);
    const full = [
      ...readOnly.slice(0, 4),
      ...changing,
      "read_lints",
      "todo_write",
      "ask_question",
      "web_search",
      "web_fetch",
      "run_subagent",
    ];
    expect(byMode("agent")).toEqual(full);
    expect(byMode("debug")).toEqual(full);
  });

  it.each(cursorPrompts.tools.map((tool) => [tool.name, tool] as const))(
    "describes %s with a closed object schema whose required fields exist",
    (_name, tool) => {
      expect(tool.description.length).toBeGreaterThan(40);
      expect(tool.description).not.toContain("```");
      const schema = tool.inputSchema as JsonObject;
      expect(schema.type).toBe("object");
      expect(schema.additionalProperties).toBe(false);
      const properties = schema.properties as JsonObject;
      for (const required of (schema.required as string[] | undefined) ?? []) {
        expect(Object.keys(properties)).toContain(required);
      }
      for (const property of Object.values(properties)) {
        expect((property as JsonObject).type).toBeTypeOf("string");
      }
    },
  );

  it("holds schemas in canonical key order", () => {
    const grep = cursorPrompts.tools.find((tool) => tool.name === "grep")!;
    expect(Object.keys(grep.inputSchema)).toEqual([
      "additionalProperties",
      "properties",
      "required",
      "type",
    ]);
  });
});

describe("parseToolCatalog", () => {
  it("reads sections in order, ignoring the text before the first", () => {
    const source = `# Catalog\n\nIntro with {braces}.\n\n${section("b_tool", "ask, agent", objectSchema, "Line one.\n\nLine two.")}${section("a_tool", "plan", '{"type":"object","properties":{"x":{"type":"string"}}}')}`;
    expect(parseToolCatalog({ file, source })).toEqual([
      {
        name: "b_tool",
        description: "Line one.\n\nLine two.",
        inputSchema: { properties: {}, type: "object" },
        modes: ["agent", "ask"],
      },
      {
        name: "a_tool",
        description: "Does it.",
        inputSchema: { properties: { x: { type: "string" } }, type: "object" },
        modes: ["plan"],
      },
    ]);
  });

  it.each([
    ["no tools", "# Catalog\n", undefined, "has no tools"],
    ["a bad tool name", section("read file", "agent", objectSchema), 1, 'tool name "read file"'],
    [
      "a tool defined twice",
      section("a", "agent", objectSchema) + section("a", "ask", objectSchema),
      10,
      "tool a is defined twice",
    ],
    ["a missing modes line", "## a\n\nDoes it.\n", 3, 'expected a "modes:" line'],
    ["an unknown mode", section("a", "agent, chat", objectSchema), 3, 'unknown mode "chat"'],
    ["a repeated mode", section("a", "ask, ask", objectSchema), 3, "a mode is listed twice"],
    ["no schema", "## a\n\nmodes: agent\n\nDoes it.\n", 1, "no ```json schema"],
    [
      "an empty description",
      section("a", "agent", objectSchema, ""),
      4,
      "the description is empty",
    ],
    [
      "an unclosed fence",
      "## a\nmodes: agent\nDoes it.\n```json\n{}\n",
      4,
      "the json fence is not closed",
    ],
    ["invalid JSON", section("a", "agent", "{ type: object }"), 8, "the schema is not JSON"],
    ["a non-object schema", section("a", "agent", '{ "type": "string" }'), 8, '"type": "object"'],
    ["a schema without a type", section("a", "agent", "{}"), 8, '"type": "object"'],
    [
      "text after the schema",
      `${section("a", "agent", objectSchema)}\nmore\n`,
      11,
      "text after the schema",
    ],
  ])("rejects %s, naming the file and line", (_name, source, line, message) => {
    const error = catalogError(source);
    expect(error.problem).toBe("invalid-tool-catalog");
    expect(error.file).toBe(file);
    expect(error.line).toBe(line);
    expect(error.message).toContain(message);
    expect(error.message.startsWith(`${file}${line === undefined ? "" : `:${line}`}: `)).toBe(true);
  });
});
