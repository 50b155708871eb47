import { sha256Hex } from "@cursor/run";

/** Tool names every supported provider accepts. */
export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

const maxToolNameLength = 64;
const unsafeCharacter = /[^A-Za-z0-9_-]/gu;

/**
 * The name an MCP tool is exposed to the model under: `mcp__<server>__<tool>`. When a name has
 * characters providers reject (replaced by `_`) or the result is longer than 64 characters
 * (cut), an 8-hex digest of the original pair is appended, so "a.b" and "a_b" stay apart. It
 * depends on the pair alone, so the same tool keeps its name however the servers are listed.
 */
export function mcpToolName({ server, tool }: { server: string; tool: string }): string {
  const safeServer = server.replace(unsafeCharacter, "_");
  const safeTool = tool.replace(unsafeCharacter, "_");
  const plain = `mcp__${safeServer}__${safeTool}`;
  if (safeServer === server && safeTool === tool && plain.length <= maxToolNameLength) return plain;
  const suffix = `_${sha256Hex(`${server}\u0000${tool}`).slice(0, 8)}`;
  return `${plain.slice(0, maxToolNameLength - suffix.length)}${suffix}`;
}
