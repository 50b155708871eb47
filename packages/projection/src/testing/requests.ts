import type { RequestContextInput } from "@cursor/request";

// Builders of raw agent run request bodies (JSON as a client sends them) for the suites.

export type Mode = "agent" | "ask" | "plan" | "debug";

interface Common {
  readonly conversationId?: string;
  readonly runId: string;
  readonly mode?: Mode;
  readonly checkpoint?: string | undefined;
  readonly timestamp?: string;
}

function common({ conversationId = "c1", runId, mode = "agent", checkpoint, timestamp }: Common) {
  return {
    conversationId,
    runId,
    mode,
    ...(timestamp === undefined ? {} : { timestamp }),
    ...(checkpoint === undefined ? {} : { checkpoint }),
  };
}

/** Conversation-level context: rules, environment, git (its `status` is what usually changes). */
export function requestContext(gitStatus: string, rule = "Prefer small functions.") {
  return {
    rules: [{ name: "style", path: ".cursor/rules/style.mdc", content: rule }],
    env: {
      os: "linux 6.1",
      shell: "bash",
      workspacePaths: ["/home/dev/app"],
      timeZone: "Europe/Berlin",
    },
    git: [{ path: "/home/dev/app", branch: "main", status: gitStatus }],
    mcp: {
      servers: [
        {
          name: "db",
          instructions: "Read-only access.",
          tools: [
            {
              name: "query",
              description: "Run a SQL query",
              inputSchema: { type: "object", properties: { sql: { type: "string" } } },
            },
          ],
        },
      ],
    },
  };
}

export function userMessage(
  options: Common & {
    readonly messageId: string;
    readonly text: string;
    readonly context?: RequestContextInput | undefined;
  },
) {
  return {
    ...common(options),
    action: { type: "user-message", message: { id: options.messageId, text: options.text } },
    ...(options.context === undefined ? {} : { requestContext: options.context }),
  };
}

export function toolResults(
  options: Common & {
    readonly results: readonly { callId: string; output: string; isError?: boolean }[];
  },
) {
  return { ...common(options), action: { type: "tool-results", results: options.results } };
}

export function injectContext(
  options: Common & {
    readonly injectionId: string;
    readonly text: string;
    readonly expectedRunId?: string;
    readonly context?: RequestContextInput | undefined;
  },
) {
  return {
    ...common(options),
    action: {
      type: "inject-context",
      injectionId: options.injectionId,
      text: options.text,
      ...(options.expectedRunId === undefined ? {} : { expectedRunId: options.expectedRunId }),
    },
    ...(options.context === undefined ? {} : { requestContext: options.context }),
  };
}

export function backgroundCompletion(
  options: Common & {
    readonly completions: readonly {
      taskId: string;
      kind: "shell" | "subagent";
      status?: "success" | "error" | "aborted";
      title?: string;
      toolCallId?: string;
    }[];
    readonly context?: RequestContextInput | undefined;
  },
) {
  return {
    ...common(options),
    action: {
      type: "background-completion",
      completions: options.completions.map((completion) => ({
        status: "success",
        title: `task ${completion.taskId}`,
        ...completion,
      })),
    },
    ...(options.context === undefined ? {} : { requestContext: options.context }),
  };
}

export function summarize(options: Common) {
  return { ...common(options), action: { type: "summarize" } };
}
