import type { SessionMode, SessionRequestContext } from "./agent-session-events.js";
import type { SeededRandom } from "./seeded-random.js";

// Deterministic, realistic-looking content for generated sessions: request-context variants,
// source files, user queries, tool calls and their (large) outputs.

const workspaceRoot = "/home/dev/app";

const baseContext: SessionRequestContext = {
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Prefer small pure functions. Name things by what they are. No default exports.",
    },
    {
      name: "testing",
      path: ".cursor/rules/testing.mdc",
      content:
        "Tests live beside the code as *.test.ts and run with vitest. Keep them deterministic.",
    },
  ],
  skills: [{ name: "pdf", path: "skills/pdf/SKILL.md", description: "Read and fill PDF forms." }],
  subagents: [{ name: "reviewer", description: "Reviews a diff for bugs and style issues." }],
  env: {
    os: "linux 6.1",
    shell: "bash",
    workspacePaths: [workspaceRoot],
    timeZone: "Europe/Berlin",
  },
  git: [{ path: workspaceRoot, branch: "main", status: " M src/app.ts" }],
  mcp: {
    servers: [
      {
        name: "db",
        instructions: "Read-only access to the staging database.",
        tools: [
          {
            name: "query",
            description: "Run a read-only SQL query.",
            inputSchema: {
              type: "object",
              properties: { sql: { type: "string" } },
              required: ["sql"],
            },
          },
        ],
      },
    ],
  },
};

/** Request-context variants; sessions move between them and back (A → B → A). */
export const requestContextVariants: Readonly<Record<string, SessionRequestContext>> = {
  base: baseContext,
  "extra-rule": {
    ...baseContext,
    rules: [
      ...baseContext.rules,
      {
        name: "security",
        path: ".cursor/rules/security.mdc",
        content: "Never log secrets. Validate every request body with zod.",
      },
    ],
  },
  "other-branch": {
    ...baseContext,
    git: [
      {
        path: workspaceRoot,
        branch: "feature/cache-stats",
        status: " M src/cache.ts\n?? src/cache.test.ts",
      },
    ],
  },
};

export const contextVariantNames = Object.keys(requestContextVariants);

const modules = ["parser", "cache", "router", "store", "session", "config", "metrics", "queue"];
const verbs = ["parse", "load", "merge", "render", "validate", "encode", "resolve", "flush"];

export function sourcePath(random: SeededRandom): string {
  return `${workspaceRoot}/src/${random.pick(modules)}${random.chance(0.3) ? ".test" : ""}.ts`;
}

/** A TypeScript-looking file of about `chars` characters. */
export function sourceFile(random: SeededRandom, chars: number): string {
  const lines: string[] = [`import { z } from "zod";`, ""];
  let size = 0;
  let n = 0;
  while (size < chars) {
    const verb = random.pick(verbs);
    const name = `${verb}${random.pick(modules).replace(/^./, (c) => c.toUpperCase())}${n}`;
    const block = [
      `/** ${verb}s the ${random.pick(modules)} entry ${n}; returns its size in bytes. */`,
      `export function ${name}(input: string, limit = ${random.int(1, 4096)}): number {`,
      `  const value = input.slice(0, limit).trim();`,
      `  if (value.length === 0) throw new Error("${name}: empty input");`,
      `  return Buffer.byteLength(value) + ${random.int(0, 99)};`,
      `}`,
      "",
    ];
    for (const line of block) {
      lines.push(line);
      size += line.length + 1;
    }
    n += 1;
  }
  return lines.join("\n").slice(0, Math.max(chars, 1));
}

/** `cat -n`-style numbering, as read_file returns it. */
function numbered(text: string): string {
  return text
    .split("\n")
    .map((line, i) => `${String(i + 1).padStart(6, " ")}\t${line}`)
    .join("\n");
}

const queries = [
  "Why does {file} fail on empty input? Fix it and add a test.",
  "Explain how {file} handles errors.",
  "Refactor {file} so the helpers are pure functions.",
  "Add metrics for cache hits to {file}.",
  "The build is red after my last change to {file}; find out why.",
  "Write a plan for splitting {file} into smaller modules.",
  "Rename the exported functions in {file} to say what they return.",
];

export function userQuery(random: SeededRandom, turn: number): string {
  const file = `src/${random.pick(modules)}.ts`;
  return `${random.pick(queries).replace("{file}", file)} (turn ${turn + 1})`;
}

/**
 * Tools a mode may call that the generator uses (names from prompt/cursor/tools.md), weighted
 * like a real agent: mostly file reads, then searches.
 */
export const toolsByMode: Readonly<Record<SessionMode, readonly (readonly [string, number])[]>> = {
  agent: [
    ["read_file", 6],
    ["grep", 2],
    ["list_directory", 1],
    ["shell", 2],
    ["edit_file", 2],
  ],
  ask: [
    ["read_file", 6],
    ["grep", 2],
    ["list_directory", 1],
  ],
  plan: [
    ["read_file", 6],
    ["grep", 2],
    ["glob", 1],
  ],
  debug: [
    ["read_file", 6],
    ["grep", 2],
    ["shell", 3],
  ],
};

export interface PlannedCall {
  readonly name: string;
  readonly arguments: string;
  readonly output: string;
  readonly isError: boolean;
  /** A shell command started in the background: its completion arrives later. */
  readonly background: boolean;
}

/** One tool call of a given tool with plausible arguments and output of about `chars`. */
export function plannedCall(random: SeededRandom, tool: string, chars: number): PlannedCall {
  const path = sourcePath(random);
  switch (tool) {
    case "read_file": {
      const missing = random.chance(0.05);
      return {
        name: tool,
        arguments: JSON.stringify({ path }),
        output: missing ? `Error: ${path} does not exist` : numbered(sourceFile(random, chars)),
        isError: missing,
        background: false,
      };
    }
    case "grep": {
      const pattern = `${random.pick(verbs)}\\w+`;
      const matches = Array.from(
        { length: random.int(3, 40) },
        () =>
          `${sourcePath(random)}:${random.int(1, 400)}:export function ${random.pick(verbs)}${random.int(0, 99)}(`,
      );
      return {
        name: tool,
        arguments: JSON.stringify({ pattern, path: `${workspaceRoot}/src` }),
        output: matches.join("\n"),
        isError: false,
        background: false,
      };
    }
    case "glob":
    case "list_directory": {
      const entries = modules.map((m) => `${m}.ts`).join("\n");
      const args = tool === "glob" ? { pattern: "src/**/*.ts" } : { path: `${workspaceRoot}/src` };
      return {
        name: tool,
        arguments: JSON.stringify(args),
        output: entries,
        isError: false,
        background: false,
      };
    }
    case "shell": {
      const background = random.chance(0.35);
      const command = background
        ? "pnpm test --watch=false"
        : random.pick(["pnpm typecheck", "pnpm lint", "git status"]);
      const failed = !background && random.chance(0.2);
      return {
        name: tool,
        arguments: JSON.stringify({
          command,
          description: `Run ${command}.`,
          ...(background ? { background: true } : {}),
        }),
        output: background
          ? "Started in the background."
          : `$ ${command}\n${sourceFile(random, Math.min(chars, 2000))}\nexit ${failed ? 1 : 0}`,
        isError: failed,
        background,
      };
    }
    case "edit_file":
      return {
        name: tool,
        arguments: JSON.stringify({
          path,
          old_string: "trim()",
          new_string: "trim() /* edited */",
        }),
        output: `Edited ${path}: 1 replacement.`,
        isError: false,
        background: false,
      };
    default:
      return { name: tool, arguments: "{}", output: "ok", isError: false, background: false };
  }
}
