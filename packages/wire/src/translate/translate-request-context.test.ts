import { create, fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { compileRequestContext } from "@cursor/request";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fullCursorContext } from "../__fixtures__/cursor-context.js";
import type { RequestContext } from "../gen/agent_v1_pb.js";
import { RequestContextSchema } from "../gen/agent_v1_pb.js";
import type { CursorContextParts } from "./translate-request-context.js";
import { translateRequestContext } from "./translate-request-context.js";

function partsOf(context: RequestContext): CursorContextParts {
  return {
    rules: context.rules,
    nonFileRules: context.nonFileRules,
    cloudRule: context.cloudRule,
    agentSkills: context.agentSkills,
    skillOptions: context.skillOptions,
    customSubagents: context.customSubagents,
    mcpTools: context.tools,
    mcpInstructions: context.mcpInstructions,
    env: context.env,
    gitRepos: context.gitRepos,
  };
}

const full = () => create(RequestContextSchema, fullCursorContext());

describe("Cursor RequestContext -> the JSON contract's requestContext", () => {
  it("translates rules by type, skills, subagents, env, git and MCP", () => {
    const { context, warnings } = translateRequestContext(partsOf(full()));
    expect(warnings).toEqual([]);
    expect(context.rules).toEqual([
      { name: "style", path: "/repo/.cursor/rules/style.mdc", content: "Prefer small functions." },
      {
        name: "tests",
        path: "/repo/.cursor/rules/tests.mdc",
        content: "Tests sit beside the code.",
        globs: ["src/**/*.test.ts", "test/**"],
      },
      {
        name: "db",
        path: "/repo/.cursor/rules/db.mdc",
        content: "Migrations are append-only.",
        description: "Database work",
      },
      { name: "user rule", content: "Answer in English." },
      { name: "cloud rule", content: "Never commit secrets." },
    ]);
    expect(context.skills).toEqual([
      { name: "pdf", path: "/repo/.cursor/skills/pdf/SKILL.md", description: "Fill PDF forms." },
    ]);
    expect(context.subagents).toEqual([{ name: "reviewer", description: "Reviews diffs." }]);
    expect(context.env).toEqual({
      os: "linux 6.1",
      shell: "bash",
      workspacePaths: ["/repo"],
      timeZone: "Europe/Berlin",
    });
    expect(context.git).toEqual([{ path: "/repo", branch: "main", status: " M src/a.ts" }]);
    expect(context.mcp).toEqual({
      servers: [
        {
          name: "db",
          instructions: "Read-only.",
          tools: [
            {
              name: "query",
              description: "Runs SQL.",
              inputSchema: {
                type: "object",
                properties: { sql: { type: "string" } },
                required: ["sql"],
              },
            },
            {
              name: "tables",
              description: "Lists tables.",
              inputSchema: { type: "object", properties: {} },
            },
          ],
        },
      ],
    });
    const compiled = compileRequestContext(context)!;
    expect(compiled.text).toContain('globs="src/**/*.test.ts, test/**"');
    expect(compiled.text).toContain('description="Database work"');
    expect(compiled.text).not.toContain("Only when attached.");
  });

  it("leaves out skills the model may not invoke and those that failed to parse", () => {
    const context = full();
    context.agentSkills.push(
      create(RequestContextSchema, {
        agentSkills: [
          {
            fullPath: "/s/manual/SKILL.md",
            description: "Manual only.",
            disableModelInvocation: true,
          },
          { fullPath: "/s/broken/SKILL.md", description: "Broken.", parseError: "bad frontmatter" },
        ],
      }).agentSkills[0]!,
      create(RequestContextSchema, {
        agentSkills: [{ fullPath: "/s/broken/SKILL.md", description: "Broken.", parseError: "x" }],
      }).agentSkills[0]!,
    );
    expect(translateRequestContext(partsOf(context)).context.skills).toHaveLength(1);
  });

  it("drops what it cannot use, with a warning: an unknown time zone, a non-object MCP schema", () => {
    const context = full();
    context.env!.timeZone = "Mars/Olympus";
    context.tools.push(
      create(RequestContextSchema, {
        tools: [
          {
            providerIdentifier: "db",
            toolName: "bad",
            inputSchema: fromJson(ValueSchema, { type: "string" }),
          },
        ],
      }).tools[0]!,
    );
    const { context: translated, warnings } = translateRequestContext(partsOf(context));
    expect(translated.env?.timeZone).toBeUndefined();
    expect(translated.mcp?.servers[0]?.tools?.map((tool) => tool.name)).toEqual([
      "query",
      "tables",
    ]);
    expect(warnings).toEqual([
      { what: "env.time_zone", reason: "unknown time zone Mars/Olympus" },
      { what: "MCP tool db/bad", reason: "its input schema is not a JSON object schema" },
    ]);
  });

  it("compiles to the same digest however the client orders its lists (property)", () => {
    const base = full();
    const digest = compileRequestContext(translateRequestContext(partsOf(base)).context)!.digest;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (seeds) => {
        const shuffled = full();
        const shuffle = <T>(items: T[], seed: number): T[] =>
          items
            .map((item, index) => ({ item, key: (index * 7919 + seed * 104_729) % 1_000_003 }))
            .sort((a, b) => a.key - b.key)
            .map(({ item }) => item);
        shuffled.rules = shuffle(shuffled.rules, seeds[0]!);
        shuffled.tools = shuffle(shuffled.tools, seeds[1]!);
        shuffled.gitRepos = shuffle(
          [
            ...shuffled.gitRepos,
            create(RequestContextSchema, { gitRepos: [{ path: "/lib", branchName: "dev" }] })
              .gitRepos[0]!,
          ],
          seeds[2]!,
        );
        shuffled.agentSkills = shuffle(shuffled.agentSkills, seeds[3]!);
        shuffled.customSubagents = shuffle(
          [
            ...shuffled.customSubagents,
            create(RequestContextSchema, {
              customSubagents: [{ name: "writer", description: "Writes." }],
            }).customSubagents[0]!,
          ],
          seeds[4]!,
        );
        shuffled.env!.workspacePaths = shuffle(["/repo", "/lib"], seeds[5]!);
        shuffled.mcpInstructions = shuffle(shuffled.mcpInstructions, seeds[6]!);
        const withExtras = full();
        withExtras.gitRepos.push(
          create(RequestContextSchema, { gitRepos: [{ path: "/lib", branchName: "dev" }] })
            .gitRepos[0]!,
        );
        withExtras.customSubagents.push(
          create(RequestContextSchema, {
            customSubagents: [{ name: "writer", description: "Writes." }],
          }).customSubagents[0]!,
        );
        withExtras.env!.workspacePaths = ["/repo", "/lib"];
        const expected = compileRequestContext(
          translateRequestContext(partsOf(withExtras)).context,
        )!.digest;
        const actual = compileRequestContext(
          translateRequestContext(partsOf(shuffled)).context,
        )!.digest;
        expect(actual).toBe(expected);
      }),
      { numRuns: 50 },
    );
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
