import { createCursorPromptSpec } from "@cursor/request";
import { describe, expect, it } from "vitest";
import { textOf } from "./testing/prefix-assertions.js";
import { userMessage } from "./testing/requests.js";
import type { Mode } from "./testing/requests.js";
import { TestGateway } from "./testing/test-gateway.js";

// Distinctive markers in every conversation-level field: none may leak into a runtime message.
const markedContext = {
  rules: [{ name: "style", path: ".cursor/rules/style.mdc", content: "RULE-7f3a" }],
  skills: [{ name: "pdf", path: "skills/pdf/SKILL.md", description: "SKILL-51c0" }],
  subagents: [{ name: "reviewer", description: "SUBAGENT-a9e4" }],
  env: {
    os: "OS-3d2c",
    shell: "bash",
    workspacePaths: ["/WORKSPACE-e7b1"],
    timeZone: "Europe/Berlin",
  },
  git: [{ path: "/WORKSPACE-e7b1", branch: "BRANCH-0c6f", status: "GIT-9c1d" }],
  mcp: {
    servers: [
      {
        name: "db",
        instructions: "MCP-2b8e",
        tools: [{ name: "query", description: "MCPTOOL-44aa", inputSchema: { type: "object" } }],
      },
    ],
  },
};
const markers = [
  "RULE-7f3a",
  "SKILL-51c0",
  "SUBAGENT-a9e4",
  "OS-3d2c",
  "WORKSPACE-e7b1",
  "BRANCH-0c6f",
  "GIT-9c1d",
  "MCP-2b8e",
  "MCPTOOL-44aa",
];
const promptSpec = createCursorPromptSpec({ mcpServers: markedContext.mcp.servers });
const query = "QUERY-6e1f: rename the handler";

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe("runtime-modes", () => {
  for (const mode of ["agent", "ask", "plan", "debug"] as const satisfies readonly Mode[]) {
    it(`${mode}: the runtime message renders one query and no conversation-level data`, async () => {
      const gateway = new TestGateway({ promptSpec });
      await gateway.send(
        userMessage({ runId: "r1", messageId: "m1", text: query, mode, context: markedContext }),
      );
      const request = gateway.provider.calls[0]!.request;
      expect(request.messages.map((message) => message.role === "user" && message.source)).toEqual([
        "request-context",
        "runtime",
      ]);
      const [context, runtime] = request.messages.map(textOf);
      expect(occurrences(runtime!, query)).toBe(1);
      expect(occurrences(runtime!, "<user_query>")).toBe(1);
      expect(runtime).toContain(`<mode name="${mode}">`);
      for (const marker of markers) {
        expect(runtime).not.toContain(marker);
        expect(context).toContain(marker);
      }
      expect(context).not.toContain(query);
    });
  }
});
