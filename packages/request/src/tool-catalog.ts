import type { JsonObject } from "@cursor/run";
import { canonicalizeJsonValue } from "@cursor/run";
import type { AgentMode } from "./agent-run-request-schema.js";
import { agentModes } from "./agent-run-request-schema.js";
import { PromptAssetError } from "./errors.js";
import { toolNamePattern } from "./mcp-tool-name.js";
import type { PromptSource } from "./prompt-assets.js";
import { inputSchemaSchema } from "./schema-primitives.js";

/** One fixed tool: what the model is told about it and the modes that may call it. */
export interface ToolCatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<JsonObject>;
  readonly modes: readonly AgentMode[];
}

const modesLine = /^modes:\s*(.*)$/;

/**
 * Parses `prompt/cursor/tools.md`: one `## <name>` section per tool, in catalog order, each with
 * a `modes:` line, the description, and the argument schema in a ```json fence. Markdown keeps
 * long descriptions readable for prompt authors; the strict parse keeps a typo from silently
 * dropping a tool. Text before the first section is commentary.
 */
export function parseToolCatalog({ file, source }: PromptSource): readonly ToolCatalogEntry[] {
  const lines = source.split("\n");
  const fail = (message: string, line?: number): never => {
    throw new PromptAssetError({
      file,
      problem: "invalid-tool-catalog",
      message,
      ...(line === undefined ? {} : { line }),
    });
  };
  const headings = lines.flatMap((line, index) => (line.startsWith("## ") ? [index] : []));
  if (headings.length === 0) fail("has no tools (each tool is a '## <name>' section)");
  const entries: ToolCatalogEntry[] = [];
  const seen = new Set<string>();
  headings.forEach((start, position) => {
    const end = headings[position + 1] ?? lines.length;
    const name = (lines[start] ?? "").slice(3).trim();
    const at = start + 1;
    if (!toolNamePattern.test(name)) fail(`tool name "${name}" must match ${toolNamePattern}`, at);
    if (seen.has(name)) fail(`tool ${name} is defined twice`, at);
    seen.add(name);

    let cursor = start + 1;
    const skipBlank = () => {
      while (cursor < end && (lines[cursor] ?? "").trim() === "") cursor += 1;
    };
    skipBlank();
    const modesMatch = modesLine.exec(lines[cursor] ?? "");
    if (modesMatch === null) fail(`tool ${name}: expected a "modes:" line`, cursor + 1);
    const modes = (modesMatch?.[1] ?? "").split(",").map((mode) => mode.trim());
    for (const mode of modes) {
      if (!(agentModes as readonly string[]).includes(mode)) {
        fail(`tool ${name}: unknown mode "${mode}" (modes: ${agentModes.join(", ")})`, cursor + 1);
      }
    }
    if (new Set(modes).size !== modes.length)
      fail(`tool ${name}: a mode is listed twice`, cursor + 1);
    cursor += 1;

    const fenceStart = lines.findIndex((line, index) => index >= cursor && line === "```json");
    if (fenceStart === -1 || fenceStart >= end) fail(`tool ${name}: no \`\`\`json schema`, at);
    const description = lines.slice(cursor, fenceStart).join("\n").trim();
    if (description === "") fail(`tool ${name}: the description is empty`, cursor + 1);
    const fenceEnd = lines.findIndex((line, index) => index > fenceStart && line === "```");
    if (fenceEnd === -1 || fenceEnd >= end)
      fail(`tool ${name}: the json fence is not closed`, fenceStart + 1);
    const trailing = lines.slice(fenceEnd + 1, end).findIndex((line) => line.trim() !== "");
    if (trailing !== -1) fail(`tool ${name}: text after the schema`, fenceEnd + 2 + trailing);

    let schema: unknown;
    try {
      schema = JSON.parse(lines.slice(fenceStart + 1, fenceEnd).join("\n"));
    } catch (error) {
      fail(`tool ${name}: the schema is not JSON (${(error as Error).message})`, fenceStart + 2);
    }
    const parsed = inputSchemaSchema.safeParse(schema);
    if (!parsed.success || (schema as JsonObject).type !== "object") {
      fail(`tool ${name}: the schema must be a JSON object with "type": "object"`, fenceStart + 2);
    }
    entries.push(
      Object.freeze({
        name,
        description,
        inputSchema: canonicalizeJsonValue(schema as JsonObject),
        modes: Object.freeze(agentModes.filter((mode) => modes.includes(mode))),
      }),
    );
  });
  return Object.freeze(entries);
}
