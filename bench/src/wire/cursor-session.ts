import type {
  RunRequestBody,
  SessionEvent,
  SessionRequestContext,
  SessionSelectedContext,
  SessionToolResult,
} from "@cursor/testkit";
import type { FakeReply } from "@cursor/testkit";
import type { IdeTurnInput } from "@cursor/wire/testing";

type CursorContext = NonNullable<IdeTurnInput["requestContext"]>;
type CursorSelection = NonNullable<IdeTurnInput["selectedContext"]>;
type CursorAction = NonNullable<IdeTurnInput["action"]>;

/** `AgentMode` and the background task enums of the Cursor schema (cursor-wire-facts.md §2.4, §2.5). */
const taskKinds = { shell: 1, subagent: 2 } as const;
const taskStatuses = { success: 1, error: 2, aborted: 3 } as const;

/**
 * A generated session's request context as the Cursor IDE sends it: file rules (always applied),
 * skills, subagents, env, git repos, MCP tools (by server) and their instructions. The wire
 * compiles it back to the same JSON-contract request context.
 */
export function cursorRequestContext(context: SessionRequestContext): CursorContext {
  return {
    rules: context.rules.map((rule) => ({
      fullPath: rule.path,
      content: rule.content,
      type: { type: { case: "global", value: {} } },
    })),
    agentSkills: context.skills.map((skill) => ({
      fullPath: skill.path,
      description: skill.description,
    })),
    customSubagents: context.subagents.map((subagent) => ({
      name: subagent.name,
      description: subagent.description,
    })),
    env: {
      osVersion: context.env.os,
      shell: context.env.shell,
      workspacePaths: [...context.env.workspacePaths],
      timeZone: context.env.timeZone,
    },
    gitRepos: context.git.map((repo) => ({
      path: repo.path,
      branchName: repo.branch,
      status: repo.status,
    })),
    tools: context.mcp.servers.flatMap((server) =>
      server.tools.map((tool) => ({
        name: `${server.name}-${tool.name}`,
        providerIdentifier: server.name,
        toolName: tool.name,
        description: tool.description,
        inputSchemaJson: JSON.stringify(tool.inputSchema),
      })),
    ),
    mcpInstructions: context.mcp.servers.map((server) => ({
      serverName: server.name,
      serverIdentifier: server.name,
      instructions: server.instructions,
    })),
  };
}

function cursorSelection(
  items: readonly SessionSelectedContext[],
  images: readonly { readonly mimeType: string; readonly data: string }[],
): CursorSelection {
  const selection: {
    files: { path: string; content: string }[];
    codeSelections: {
      path: string;
      content: string;
      range: { start: { line: number }; end: { line: number } };
    }[];
    terminals: { title: string; content: string }[];
    extraContext: string[];
    selectedImages: { mimeType: string; dataOrBlobId: { case: "data"; value: Uint8Array } }[];
  } = { files: [], codeSelections: [], terminals: [], extraContext: [], selectedImages: [] };
  for (const item of items) {
    switch (item.kind) {
      case "file":
        selection.files.push({ path: item.path, content: item.content });
        break;
      case "code":
        selection.codeSelections.push({
          path: item.path,
          content: item.content,
          range: { start: { line: item.startLine }, end: { line: item.endLine } },
        });
        break;
      case "terminal":
        selection.terminals.push({ title: item.title, content: item.content });
        break;
      case "text":
        selection.extraContext.push(item.content);
        break;
      default: {
        const exhaustive: never = item;
        throw new Error(`unknown selected context ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  for (const image of images) {
    selection.selectedImages.push({
      mimeType: image.mimeType,
      dataOrBlobId: { case: "data", value: Buffer.from(image.data, "base64") },
    });
  }
  return selection;
}

/** One Cursor turn of a session: the IDE's run request and everything the turn's run needs. */
export interface CursorSessionTurn {
  /** Index of the session event that starts it. */
  readonly index: number;
  readonly kind: "user-turn" | "retry" | "background-completion" | "inject-context" | "summarize";
  /** The session's clock for the turn (its first request's timestamp). */
  readonly timestamp: string;
  readonly input: Omit<IdeTurnInput, "conversationId" | "onMessage">;
  /** The scripted provider replies of every call of the turn (its tool rounds' included). */
  readonly replies: readonly FakeReply[];
  /** The results the IDE gives each tool round, in order. */
  readonly rounds: readonly (readonly SessionToolResult[])[];
}

export type CursorSessionStep =
  CursorSessionTurn | { readonly kind: "restart"; readonly index: number };

/** The IDE's request for a session request body (everything but a tool-results one). */
function cursorInput(body: RunRequestBody): CursorSessionTurn["input"] {
  const { action } = body;
  switch (action.type) {
    case "user-message": {
      const { message } = action;
      const items = message.selectedContext ?? [];
      const images = message.images ?? [];
      return {
        runId: body.runId,
        mode: body.mode,
        text: message.text,
        messageId: message.id,
        ...(body.requestContext === undefined
          ? {}
          : { requestContext: cursorRequestContext(body.requestContext) }),
        ...(items.length === 0 && images.length === 0
          ? {}
          : { selectedContext: cursorSelection(items, images) }),
      };
    }
    case "inject-context":
      return {
        runId: body.runId,
        action: {
          action: {
            case: "injectContextAction",
            value: {
              injectionId: action.injectionId,
              expectedRunId: action.expectedRunId ?? "",
              payload: {
                case: "systemContext",
                value: { producer: "session", content: action.text },
              },
            },
          },
        } satisfies CursorAction,
      };
    case "background-completion":
      return {
        runId: body.runId,
        action: {
          action: {
            case: "backgroundTaskCompletionAction",
            value: {
              completions: action.completions.map((completion) => ({
                taskId: completion.taskId,
                kind: taskKinds[completion.kind],
                status: taskStatuses[completion.status],
                title: completion.title,
                ...(completion.detail === undefined ? {} : { detail: completion.detail }),
                ...(completion.toolCallId === undefined
                  ? {}
                  : { toolCallId: completion.toolCallId }),
              })),
            },
          },
        } satisfies CursorAction,
      };
    case "summarize":
      return {
        runId: body.runId,
        action: { action: { case: "summarizeAction", value: {} } } satisfies CursorAction,
      };
    case "tool-results":
      throw new Error("a tool-results request is part of the Cursor turn that made the calls");
    default: {
      const exhaustive: never = action;
      throw new Error(`unknown session action ${JSON.stringify(exhaustive)}`);
    }
  }
}

/**
 * A generated session as the Cursor IDE would live it: a user turn and the tool rounds that
 * follow it are one Cursor turn (one RunSSE stream; the IDE runs the calls and gives their
 * results), every other request its own turn, restarts in place.
 */
export function cursorSessionSteps(events: readonly SessionEvent[]): CursorSessionStep[] {
  const steps: CursorSessionStep[] = [];
  for (const event of events) {
    if (event.type === "restart") {
      steps.push({ kind: "restart", index: event.index });
      continue;
    }
    if (event.type === "tool-results") {
      const turn = steps.at(-1);
      if (
        turn === undefined ||
        turn.kind !== "user-turn" ||
        event.body.action.type !== "tool-results"
      ) {
        throw new Error(`tool-results event ${event.index} follows no user turn`);
      }
      steps[steps.length - 1] = {
        ...turn,
        replies: [...turn.replies, ...event.replies],
        rounds: [...turn.rounds, event.body.action.results],
      };
      continue;
    }
    steps.push({
      index: event.index,
      kind: event.type,
      timestamp: event.body.timestamp,
      input: cursorInput(event.body),
      replies: event.replies,
      rounds: [],
    });
  }
  return steps;
}
