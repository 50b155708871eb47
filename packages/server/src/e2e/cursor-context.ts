import { fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { IdeTurnInput } from "@cursor/wire/testing";

type CursorContext = NonNullable<IdeTurnInput["requestContext"]>;

/**
 * A Cursor `RequestContext` with every conversation-level kind the wire translates: file rules
 * of each type, a user rule, a cloud rule, a skill, a subagent, env, a git repo, MCP tools and
 * instructions (cursor-wire-facts.md §2.7, field names of the protobuf schema).
 */
export function fullCursorContext(): CursorContext {
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
        type: { type: { case: "fileGlobbed", value: { globs: ["src/**/*.test.ts"] } } },
      },
      {
        fullPath: "/repo/.cursor/rules/db.mdc",
        content: "Migrations are append-only.",
        type: { type: { case: "agentFetched", value: { description: "Database work" } } },
      },
    ],
    nonFileRules: [{ content: "Answer in English." }],
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

/** The same context with every list in another order (the IDE does not keep an order). */
export function reorderedCursorContext(): CursorContext {
  const context = fullCursorContext();
  context.rules = [...(context.rules ?? [])].reverse();
  context.tools = [...(context.tools ?? [])].reverse();
  context.agentSkills = [...(context.agentSkills ?? [])].reverse();
  return context;
}

/** The context after a branch switch: one conversation-level fact changed. */
export function changedCursorContext(): CursorContext {
  const { gitRepos: _main, ...rest } = fullCursorContext() as Exclude<
    CursorContext,
    { $typeName: string }
  >;
  return { ...rest, gitRepos: [{ path: "/repo", branchName: "feature/login", status: "" }] };
}
