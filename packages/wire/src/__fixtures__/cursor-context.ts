import type { MessageInitShape } from "@bufbuild/protobuf";
import { fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { RequestContextSchema } from "../gen/agent_v1_pb.js";
import { CursorRuleSource } from "../gen/agent_v1_pb.js";

type ContextInit = MessageInitShape<typeof RequestContextSchema>;

/** A Cursor request context with every conversation-level kind the wire translates. */
export function fullCursorContext(): ContextInit {
  return {
    rules: [
      {
        fullPath: "/repo/.cursor/rules/style.mdc",
        content: "Prefer small functions.",
        type: { type: { case: "global", value: {} } },
      },
      {
        fullPath: "/repo/.cursor/rules/tests.mdc",
        content: "Tests sit beside the code.",
        type: { type: { case: "fileGlobbed", value: { globs: ["src/**/*.test.ts", "test/**"] } } },
      },
      {
        fullPath: "/repo/.cursor/rules/db.mdc",
        content: "Migrations are append-only.",
        type: { type: { case: "agentFetched", value: { description: "Database work" } } },
      },
      {
        fullPath: "/repo/.cursor/rules/manual.mdc",
        content: "Only when attached.",
        type: { type: { case: "manuallyAttached", value: {} } },
      },
    ],
    nonFileRules: [{ content: "Answer in English.", source: CursorRuleSource.USER }],
    cloudRule: "Never commit secrets.",
    agentSkills: [
      {
        fullPath: "/repo/.cursor/skills/pdf/SKILL.md",
        description: "Fill PDF forms.",
        content: "# PDF\nUse pdf-lib.",
      },
    ],
    customSubagents: [{ name: "reviewer", description: "Reviews diffs." }],
    env: {
      osVersion: "linux 6.1",
      shell: "bash",
      workspacePaths: ["/repo"],
      timeZone: "Europe/Berlin",
    },
    gitRepos: [{ path: "/repo", branchName: "main", status: " M src/a.ts" }],
    tools: [
      {
        name: "db-query",
        providerIdentifier: "db",
        toolName: "query",
        description: "Runs SQL.",
        inputSchema: fromJson(ValueSchema, {
          type: "object",
          properties: { sql: { type: "string" } },
          required: ["sql"],
        }),
      },
      {
        name: "db-tables",
        providerIdentifier: "db",
        toolName: "tables",
        description: "Lists tables.",
        inputSchemaJson: '{"type":"object","properties":{}}',
      },
    ],
    mcpInstructions: [
      { serverName: "Database", serverIdentifier: "db", instructions: "Read-only." },
    ],
  };
}

/** The same context with every list in another order. */
export function reorderedCursorContext(): ContextInit {
  const context = fullCursorContext();
  context.rules = [...(context.rules ?? [])].reverse() as typeof context.rules;
  context.tools = [...(context.tools ?? [])].reverse() as typeof context.tools;
  return context;
}
