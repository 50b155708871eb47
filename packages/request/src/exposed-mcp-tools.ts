import type { JsonObject } from "@cursor/run";
import { canonicalizeJsonValue } from "@cursor/run";
import { sortByKeys } from "./canonical-order.js";
import { ToolNameCollisionError } from "./errors.js";
import { mcpToolName } from "./mcp-tool-name.js";
import type { McpServerInput } from "./request-context-schema.js";

/** An MCP tool as the model sees it: in the prompt spec and in the request context. */
export interface ExposedMcpTool {
  /** The function name the model calls (`mcp__<server>__<tool>`, see `mcpToolName`). */
  readonly name: string;
  readonly server: string;
  /** The tool's own name on its server. */
  readonly mcpName: string;
  readonly description: string;
  /** The input schema in canonical key order, always an object schema with `properties`. */
  readonly inputSchema: JsonObject;
}

/**
 * Function-calling APIs want `{"type": "object", "properties": {...}}`; MCP servers often send
 * `{}` for a tool without arguments. Fill in what is missing (never change what is there).
 */
function normalizeInputSchema(schema: Readonly<JsonObject>): JsonObject {
  const withType: JsonObject = "type" in schema ? { ...schema } : { type: "object", ...schema };
  if (!("properties" in withType)) withType.properties = {};
  return canonicalizeJsonValue(withType);
}

/**
 * Every tool of every server, sorted by exposed name (code units), so the order does not
 * depend on how the client listed servers or tools. Throws `ToolNameCollisionError` when two
 * tools would share a name (the request schema reports the same as an issue).
 */
export function exposeMcpTools(servers: readonly McpServerInput[]): ExposedMcpTool[] {
  const tools: ExposedMcpTool[] = [];
  const sourceByName = new Map<string, string>();
  for (const server of servers) {
    for (const tool of server.tools ?? []) {
      const name = mcpToolName({ server: server.name, tool: tool.name });
      const source = `MCP server ${JSON.stringify(server.name)} tool ${JSON.stringify(tool.name)}`;
      const previous = sourceByName.get(name);
      if (previous !== undefined) {
        throw new ToolNameCollisionError({ toolName: name, sources: [previous, source] });
      }
      sourceByName.set(name, source);
      tools.push({
        name,
        server: server.name,
        mcpName: tool.name,
        description: (tool.description ?? "").trimEnd(),
        inputSchema: normalizeInputSchema(tool.inputSchema),
      });
    }
  }
  return sortByKeys(tools, (tool) => [tool.name]);
}
