import type { FakeReply } from "@cursor/testkit";

/** One `POST /v1/runs` of a scripted session and the one provider call it causes. */
export interface ScriptRequest {
  readonly label: string;
  /** The user turn (1-based) this request belongs to. */
  readonly turn: number;
  readonly body: Record<string, unknown>;
  /** The model's answer to the request's single provider call. */
  readonly reply: FakeReply;
  readonly expectedEnd: "completed" | "awaiting-tools";
  /** The tool calls the run streams (call ids, in order) when it ends `awaiting-tools`. */
  readonly expectedCallIds: readonly string[];
}

const contextA = {
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Use TypeScript strict mode. Prefer small pure functions over classes.",
    },
    {
      name: "tests",
      path: ".cursor/rules/tests.mdc",
      content: "Every change comes with a vitest test beside the code it changes.",
    },
  ],
  skills: [{ name: "pdf", path: "skills/pdf/SKILL.md", description: "Read and write PDF files" }],
  subagents: [{ name: "reviewer", description: "Reviews a diff for bugs and style." }],
  env: {
    os: "linux 6.1",
    shell: "bash",
    workspacePaths: ["/home/dev/app"],
    timeZone: "Europe/Berlin",
  },
  git: [{ path: "/home/dev/app", branch: "main", status: " M src/config.ts" }],
};

// The user edits a rule mid-session (context B), later reverts it (A again): A → B → A.
const contextB = {
  ...contextA,
  rules: [
    {
      name: "style",
      path: ".cursor/rules/style.mdc",
      content: "Use TypeScript strict mode. Prefer classes for services.",
    },
    contextA.rules[1]!,
  ],
};

// Git state moves on (a commit): context C.
const contextC = {
  ...contextA,
  git: [{ path: "/home/dev/app", branch: "feature/config", status: "" }],
};

/** Deterministic tool output of a few hundred tokens, different per call. */
function toolOutput(callId: string, name: string, lines: number): string {
  return Array.from(
    { length: lines },
    (_, line) =>
      `${name} ${callId} line ${line + 1}: export const value${line} = "${callId}-${line}";`,
  ).join("\n");
}

interface TurnPlan {
  readonly text: string;
  readonly context?: Record<string, unknown>;
  readonly mode?: "agent" | "ask" | "plan" | "debug";
  /** Tool rounds before the answer: each round lists tool names called in parallel. */
  readonly rounds?: readonly (readonly string[])[];
  readonly extraMessage?: Record<string, unknown>;
  /** A non-user event instead of a user message. */
  readonly action?: Record<string, unknown>;
}

const toolArguments: Record<string, string> = {
  grep: '{"pattern":"loadConfig","path":"/home/dev/app/src"}',
  read_file: '{"path":"/home/dev/app/src/config.ts"}',
  edit_file:
    '{"path":"/home/dev/app/src/config.ts","old_string":"export const","new_string":"export let"}',
  list_directory: '{"path":"/home/dev/app/src"}',
  glob: '{"pattern":"**/*.test.ts"}',
  shell: '{"command":"pnpm test","description":"Run the tests"}',
};

const twentyTurns: readonly TurnPlan[] = [
  { text: "Where is the configuration loaded?", rounds: [["grep"], ["read_file", "read_file"]] },
  { text: "Which settings have no default?" },
  { text: "Make the settings mutable.", rounds: [["edit_file"]] },
  { text: "Run the tests.", rounds: [["shell"]] },
  { text: "Refactor the config into a class.", context: contextB, rounds: [["read_file"]] },
  { text: "Is the class tested?", context: contextB },
  { text: "Plan a migration to a typed schema.", context: contextB, mode: "plan" },
  {
    text: "",
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
  {
    text: "List the test files.",
    context: contextB,
    rounds: [["glob"], ["list_directory"]],
  },
  { text: "Undo the class refactor, keep plain functions." },
  {
    text: "",
    action: {
      type: "inject-context",
      injectionId: "inject-1",
      expectedRunId: "run-10",
      text: "The user pinned src/config.ts.",
    },
  },
  { text: "Read the three config modules.", rounds: [["read_file", "read_file", "read_file"]] },
  {
    text: "Explain this selection.",
    extraMessage: {
      selectedContext: [
        {
          kind: "code",
          path: "/home/dev/app/src/config.ts",
          startLine: 1,
          endLine: 3,
          content: 'export const a = 1;\nexport const b = 2;\nexport const c = "three";',
        },
      ],
      openFiles: [
        { path: "/home/dev/app/src/config.ts", totalLines: 120, focused: true, cursorLine: 2 },
      ],
    },
  },
  { text: "Any dead code?", mode: "ask" },
  { text: "I committed; what changed since?", context: contextC },
  { text: "Grep for TODOs.", context: contextC, rounds: [["grep"]] },
  { text: "Summarise the TODOs by file.", context: contextC },
  { text: "Debug the failing config test.", context: contextC, mode: "debug", rounds: [["shell"]] },
  {
    text: "Fix it and run the tests again.",
    context: contextC,
    rounds: [["edit_file"], ["shell"]],
  },
  { text: "Thanks, that is all.", context: contextC },
];

export interface AgentScriptOptions {
  readonly conversationId: string;
  /** `call` for OpenAI, `toolu` for Anthropic: call ids in each provider's own style. */
  readonly callIdPrefix: string;
  /** How many of the 20 turns (default all). */
  readonly turns?: number;
  /** Lines of each tool output (default 12). */
  readonly toolOutputLines?: number;
}

/**
 * A deterministic 20-turn agent session: tool rounds (single and parallel calls), a context
 * change A → B and back to A, another change to C, mode switches (plan, ask, debug), a
 * background completion and an injected event. Every id and timestamp is fixed, so two runs of
 * the script send byte-identical provider bodies.
 */
export function agentScript(options: AgentScriptOptions): ScriptRequest[] {
  const { conversationId, callIdPrefix } = options;
  const lines = options.toolOutputLines ?? 12;
  const requests: ScriptRequest[] = [];
  twentyTurns.slice(0, options.turns ?? twentyTurns.length).forEach((plan, index) => {
    const turn = index + 1;
    const runId = `run-${turn}`;
    const mode = plan.mode ?? "agent";
    const timestamp = `2026-11-29T10:${String(turn).padStart(2, "0")}:00+01:00`;
    const rounds = plan.rounds ?? [];
    const callIds = rounds.map((round, r) =>
      round.map((_, c) => `${callIdPrefix}_t${turn}r${r + 1}c${c + 1}`),
    );
    const replyFor = (round: number): FakeReply =>
      round < rounds.length
        ? {
            type: "tool-calls",
            calls: rounds[round]!.map((name, c) => ({
              name,
              arguments: toolArguments[name] ?? "{}",
              callId: callIds[round]![c]!,
            })),
          }
        : { type: "text", text: `Answer to turn ${turn}: done, see the files above.` };
    const first: Record<string, unknown> =
      plan.action === undefined
        ? {
            conversationId,
            runId,
            mode,
            timestamp,
            action: {
              type: "user-message",
              message: { id: `msg-${turn}`, text: plan.text, ...plan.extraMessage },
            },
            requestContext: plan.context ?? contextA,
          }
        : { conversationId, runId, mode, timestamp, action: plan.action };
    requests.push({
      label: `turn ${turn}`,
      turn,
      body: first,
      reply: replyFor(0),
      expectedEnd: rounds.length > 0 ? "awaiting-tools" : "completed",
      expectedCallIds: callIds[0] ?? [],
    });
    rounds.forEach((round, r) => {
      requests.push({
        label: `turn ${turn} tool results ${r + 1}`,
        turn,
        body: {
          conversationId,
          runId,
          mode,
          action: {
            type: "tool-results",
            results: round.map((name, c) => ({
              callId: callIds[r]![c]!,
              output: toolOutput(callIds[r]![c]!, name, lines),
            })),
          },
        },
        reply: replyFor(r + 1),
        expectedEnd: r + 1 < rounds.length ? "awaiting-tools" : "completed",
        expectedCallIds: callIds[r + 1] ?? [],
      });
    });
  });
  return requests;
}
