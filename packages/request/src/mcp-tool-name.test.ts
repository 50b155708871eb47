import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mcpToolName, toolNamePattern } from "./mcp-tool-name.js";

describe("mcpToolName", () => {
  it("joins safe names as mcp__<server>__<tool>", () => {
    expect(mcpToolName({ server: "postgres", tool: "query" })).toBe("mcp__postgres__query");
    expect(mcpToolName({ server: "My-Server_2", tool: "Get-Thing" })).toBe(
      "mcp__My-Server_2__Get-Thing",
    );
  });

  it("replaces unsafe characters and appends a digest, so look-alikes stay apart", () => {
    const dotted = mcpToolName({ server: "issue.tracker", tool: "get issue" });
    const underscored = mcpToolName({ server: "issue_tracker", tool: "get_issue" });
    expect(dotted).toMatch(/^mcp__issue_tracker__get_issue_[0-9a-f]{8}$/);
    expect(underscored).toBe("mcp__issue_tracker__get_issue");
    expect(mcpToolName({ server: "☃", tool: "t" })).toMatch(/^mcp_____t_[0-9a-f]{8}$/);
  });

  it("cuts long names to 64 characters, keeping them distinct", () => {
    const a = mcpToolName({ server: "s".repeat(40), tool: `${"t".repeat(40)}a` });
    const b = mcpToolName({ server: "s".repeat(40), tool: `${"t".repeat(40)}b` });
    expect(a).toHaveLength(64);
    expect(b).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a.startsWith(`mcp__${"s".repeat(40)}__`)).toBe(true);
  });

  it("always gives a name every provider accepts, the same one each time", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 256, unit: "binary" }),
        fc.string({ minLength: 1, maxLength: 256, unit: "binary" }),
        (server, tool) => {
          const name = mcpToolName({ server, tool });
          expect(name).toMatch(toolNamePattern);
          expect(mcpToolName({ server, tool })).toBe(name);
        },
      ),
      { numRuns: 300 },
    );
  });
});
