/**
 * The scripted agent session of `cursor-gateway demo`: each step is one gateway request plus
 * the replies the simulated model gives to the provider calls that request causes.
 */
export interface DemoStep {
  readonly label: string;
  readonly body: Record<string, unknown>;
  /** Fake provider replies for this request's model calls, in order. */
  readonly replies: readonly Record<string, unknown>[];
  /** Tool outputs to send back when the run ends `awaiting-tools` (by tool name). */
  readonly toolOutput?: (name: string, args: string) => string;
}

const contextA = {
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Use TypeScript strict mode. Prefer small pure functions.",
    },
    {
      name: "tests",
      path: ".cursor/rules/tests.mdc",
      content: "Every change comes with a vitest test beside the code.",
    },
  ],
  skills: [{ name: "pdf", path: "skills/pdf/SKILL.md", description: "Read and write PDF files" }],
  env: {
    os: "linux 6.1",
    shell: "bash",
    workspacePaths: ["/home/dev/app"],
    timeZone: "Europe/Berlin",
  },
  git: [{ path: "/home/dev/app", branch: "main", status: " M src/config.ts" }],
};

// Context B: a rule changed mid-session (the user edited style.mdc); later reverted to A.
const contextB = {
  ...contextA,
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Use TypeScript strict mode. Prefer classes for services.",
    },
    contextA.rules[1],
  ],
};

const fileListing = Array.from(
  { length: 60 },
  (_, i) => `src/module-${i}/index.ts:${i + 3}: import { loadConfig } from "../config.js";`,
).join("\n");
const configSource = Array.from(
  { length: 120 },
  (_, i) => `export const setting${i} = process.env.SETTING_${i} ?? "default-${i}";`,
).join("\n");

export function demoSession(conversationId: string): DemoStep[] {
  const turn = (n: number, text: string, extra: Record<string, unknown> = {}) => ({
    conversationId,
    runId: `run-${n}`,
    mode: "agent",
    timestamp: `2026-11-29T10:${String(n).padStart(2, "0")}:00+01:00`,
    action: { type: "user-message", message: { id: `msg-${n}`, text } },
    requestContext: contextA,
    ...extra,
  });
  return [
    {
      label: "user: find where config is loaded (tool round)",
      body: turn(1, "Where is the configuration loaded? Then summarise it."),
      replies: [
        {
          type: "tool-calls",
          calls: [{ name: "grep", arguments: '{"pattern":"loadConfig","path":"src"}' }],
        },
        {
          type: "tool-calls",
          calls: [
            { name: "read_file", arguments: '{"path":"src/config.ts"}' },
            { name: "read_file", arguments: '{"path":"src/main.ts"}' },
          ],
        },
        {
          type: "text",
          text: "The configuration is loaded in src/config.ts from environment variables.",
        },
      ],
      toolOutput: (name) => (name === "grep" ? fileListing : configSource),
    },
    {
      label: "user: same context, follow-up",
      body: turn(2, "Which settings have no default?"),
      replies: [{ type: "text", text: "All of them have defaults." }],
    },
    {
      label: "user: context changed (rule edited)",
      body: turn(3, "Refactor the config into a class.", { requestContext: contextB }),
      replies: [
        {
          type: "tool-calls",
          calls: [
            {
              name: "edit_file",
              arguments:
                '{"path":"src/config.ts","old_string":"export const","new_string":"static readonly"}',
            },
          ],
        },
        { type: "text", text: "Done: the settings are now static members of a Config class." },
      ],
      toolOutput: () => "Edited src/config.ts (120 replacements).",
    },
    {
      label: "user: context reverted to the first one",
      body: turn(4, "Undo that, keep plain functions."),
      replies: [{ type: "text", text: "Reverted to plain exported constants." }],
    },
    {
      label: "user: mode switch to plan",
      body: { ...turn(5, "Plan a migration to a typed schema."), mode: "plan" },
      replies: [
        { type: "text", text: "1. Add zod. 2. Define the schema. 3. Parse process.env once." },
      ],
    },
    {
      label: "background task finished",
      body: {
        conversationId,
        runId: "run-6",
        mode: "agent",
        action: {
          type: "background-completion",
          completions: [
            {
              taskId: "task-1",
              kind: "shell",
              status: "success",
              title: "pnpm test",
              detail: "42 passed",
            },
          ],
        },
      },
      replies: [{ type: "text", text: "The test run passed (42 tests)." }],
    },
    {
      label: "user: one more question",
      body: turn(7, "Anything else to clean up?"),
      replies: [{ type: "text", text: "No, the module is tidy." }],
    },
  ];
}
