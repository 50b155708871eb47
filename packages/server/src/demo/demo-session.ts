/**
 * The session of `cursor-gateway demo`: each step is one gateway request a Cursor-style client
 * sends. The simulated provider's scripted agent decides what to do (search, read a file,
 * answer); the demo runs its tool calls on the demo workspace and sends the results back.
 */
export interface DemoStep {
  readonly label: string;
  readonly body: Record<string, unknown>;
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
      label: "user: where is loadConfig? (grep, then read)",
      body: turn(1, "Where is loadConfig defined? Then summarise it."),
    },
    { label: "user: look at src/server.ts", body: turn(2, "Look at src/server.ts, please.") },
    {
      label: "user: context changed (rule edited)",
      body: turn(3, "Where is the port set?", { requestContext: contextB }),
    },
    {
      label: "user: context back to the first one",
      body: turn(4, "Read package.json and tell me how to start it."),
    },
    {
      label: "user: mode switch to ask",
      body: { ...turn(5, "Look at README.md"), mode: "ask" },
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
    },
    { label: "user: a question without a tool", body: turn(7, "Thanks, that is all for now.") },
  ];
}
