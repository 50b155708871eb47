import { createCursorPromptSpec } from "@cursor/request";
import type { JsonObject, PromptSpec } from "@cursor/run";
import type { SessionRequestContext } from "@cursor/testkit";

/** The gateway's prompt spec for a request context: fixed instructions and tools plus its MCP tools. */
export function promptSpecFor(requestContext: SessionRequestContext | undefined): PromptSpec {
  const servers = requestContext?.mcp.servers;
  if (servers === undefined) return createCursorPromptSpec({});
  return createCursorPromptSpec({
    mcpServers: servers.map((server) => ({
      name: server.name,
      instructions: server.instructions,
      tools: server.tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        // The session's schemas are plain JSON; createCursorPromptSpec validates them again.
        inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)) as JsonObject,
      })),
    })),
  });
}
