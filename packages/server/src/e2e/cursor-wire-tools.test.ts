import { create, toBinary } from "@bufbuild/protobuf";
import type { RecordedRequest } from "@cursor/testkit";
import {
  AgentClientMessageSchema,
  ExecClientControlMessageSchema,
  ExecClientMessageSchema,
  IdeWorkspace,
} from "@cursor/wire/testing";
import type {
  AgentServerMessage,
  ExecServerMessage,
  IdeTurnResult,
  IdeWorkspaceOptions,
  InteractionUpdate,
} from "@cursor/wire/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fullCursorContext } from "./cursor-context.js";
import { scriptedIde, startWireGateway } from "./cursor-wire-harness.js";
import type { WireGateway } from "./cursor-wire-harness.js";
import { temporaryFolders } from "./e2e-environment.js";
import { killAllGatewayProcesses } from "./gateway-process.js";
import { cacheShortfalls, historyItems, prefixViolations } from "./provider-bodies.js";
import { randomInt, seededRandom } from "./seeded-random.js";
import { startScriptedProvider, unexpectedCall } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";

/**
 * The tool bridge on a real gateway process: the fake provider's tool calls run in a scripted
 * IDE's in-memory workspace through `exec_server_message`s, and the IDE's answers come back to
 * the model as tool results in the next provider body.
 */

const folders = temporaryFolders("cursor-wire-tools");
let provider: ScriptedProvider;
let gateway: WireGateway;

beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startWireGateway({ provider, dataDir: folders.create() });
});
afterAll(async () => {
  await gateway.stop();
  await killAllGatewayProcesses();
  await provider.fake.close();
  folders.removeAll();
});

/** The `function_call_output` of a call in a Responses body. */
function toolOutput(body: unknown, callId: string): string | undefined {
  for (const item of historyItems("openai-responses", body)) {
    const record = item as { type?: string; call_id?: string; output?: unknown };
    if (record.type === "function_call_output" && record.call_id === callId) {
      return typeof record.output === "string" ? record.output : JSON.stringify(record.output);
    }
  }
  return undefined;
}

function countToolOutputs(body: unknown, callId: string): number {
  return historyItems("openai-responses", body).filter((item) => {
    const record = item as { type?: string; call_id?: string };
    return record.type === "function_call_output" && record.call_id === callId;
  }).length;
}

const updatesOf = (turn: IdeTurnResult, kind: InteractionUpdate["message"]["case"]) =>
  turn.updates.filter((update) => update.message.case === kind);

function completedVariant(turn: IdeTurnResult, callId: string) {
  const completed = updatesOf(turn, "toolCallCompleted")
    .map((update) => update.message)
    .find((message) => message.case === "toolCallCompleted" && message.value.callId === callId);
  return completed?.case === "toolCallCompleted" ? completed.value.toolCall?.tool : undefined;
}

const execsOf = (turn: IdeTurnResult): ExecServerMessage[] =>
  turn.messages.flatMap((message: AgentServerMessage) =>
    message.message.case === "execServerMessage" ? [message.message.value] : [],
  );

/** Runs one agent turn whose first provider reply is `calls`, then `final`. */
async function toolTurn({
  conversationId,
  calls,
  workspace,
  final = "Done.",
  withContext = false,
}: {
  conversationId: string;
  calls: { name: string; arguments: string; callId: string }[];
  workspace: IdeWorkspace;
  final?: string;
  withContext?: boolean;
}): Promise<{ turn: IdeTurnResult; requests: RecordedRequest[] }> {
  const before = provider.fake.requests.length;
  provider.fake.enqueue({ type: "tool-calls", calls }, { type: "text", text: final });
  const { ide, transport } = scriptedIde({
    url: gateway.url,
    protocol: "h1",
    options: { workspace },
  });
  try {
    const turn = await ide.runTurn({
      conversationId,
      text: "please do it",
      ...(withContext ? { requestContext: fullCursorContext() } : {}),
    });
    return { turn, requests: provider.fake.requests.slice(before) };
  } finally {
    transport.close();
  }
}

interface ToolCase {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly workspace?: IdeWorkspaceOptions;
  readonly withContext?: boolean;
  /** The exec case(s) the IDE gets, in order. */
  readonly execs: readonly string[];
  /** What the exec args carry. */
  readonly execArgs?: (execs: readonly ExecServerMessage[]) => void;
  /** Text the model's tool result contains. */
  readonly output: readonly string[];
  /** The ToolCall variant of `tool_call_completed`. */
  readonly variant: string;
  readonly check?: (workspace: IdeWorkspace, turn: IdeTurnResult) => void;
}

const toolCases: readonly ToolCase[] = [
  {
    name: "read_file",
    arguments: { path: "/repo/a.ts", offset: 2, limit: 1 },
    workspace: { files: { "/repo/a.ts": "one\ntwo\r\nthree\n" } },
    execs: ["readArgs"],
    execArgs: ([exec]) =>
      expect(exec!.message.value).toMatchObject({ path: "/repo/a.ts", offset: 2, limit: 1 }),
    output: ["     2\ttwo"],
    variant: "readToolCall",
  },
  {
    name: "list_directory",
    arguments: { path: "/repo" },
    workspace: { files: { "/repo/b.ts": "", "/repo/a.ts": "", "/repo/src/c.ts": "" } },
    execs: ["lsArgs"],
    output: ["/repo:\na.ts\nb.ts\nsrc/"],
    variant: "lsToolCall",
  },
  {
    name: "glob",
    arguments: { pattern: "**/*.test.ts", directory: "/repo" },
    workspace: { files: { "/repo/a.test.ts": "", "/repo/src/b.test.ts": "", "/repo/c.ts": "" } },
    execs: ["grepArgs"],
    execArgs: ([exec]) =>
      expect(exec!.message.value).toMatchObject({
        glob: "**/*.test.ts",
        path: "/repo",
        outputMode: "files_with_matches",
      }),
    output: ["/repo/a.test.ts\n/repo/src/b.test.ts"],
    variant: "globToolCall",
  },
  {
    name: "grep",
    arguments: { pattern: "load\\w+", path: "/repo", glob: "*.ts", case_insensitive: true },
    workspace: {
      files: { "/repo/config.ts": "export function loadConfig() {}\n", "/repo/x.md": "loadX" },
    },
    execs: ["grepArgs"],
    execArgs: ([exec]) =>
      expect(exec!.message.value).toMatchObject({
        pattern: "load\\w+",
        glob: "*.ts",
        caseInsensitive: true,
        outputMode: "content",
      }),
    output: ["/repo/config.ts:1:export function loadConfig() {}"],
    variant: "grepToolCall",
  },
  {
    name: "write_file",
    arguments: { path: "/repo/new.ts", contents: "export const x = 1;\n" },
    execs: ["readArgs", "writeArgs"],
    execArgs: (execs) =>
      expect(execs[1]!.message.value).toMatchObject({
        path: "/repo/new.ts",
        fileText: "export const x = 1;\n",
      }),
    output: ["Created /repo/new.ts (1 line)."],
    variant: "editToolCall",
    check: (workspace) => expect(workspace.files.get("/repo/new.ts")).toBe("export const x = 1;\n"),
  },
  {
    name: "edit_file",
    arguments: { path: "/repo/a.ts", old_string: "const a = 1;", new_string: "const a = 2;" },
    workspace: { files: { "/repo/a.ts": "// a\r\nconst a = 1;\r\n" } },
    execs: ["readArgs", "writeArgs"],
    output: [
      "Edited /repo/a.ts: replaced 1 occurrence (+1 -1 lines).",
      "-const a = 1;\n+const a = 2;",
    ],
    variant: "editToolCall",
    // The file keeps its CRLF line endings.
    check: (workspace) =>
      expect(workspace.files.get("/repo/a.ts")).toBe("// a\r\nconst a = 2;\r\n"),
  },
  {
    name: "delete_file",
    arguments: { path: "/repo/old.ts" },
    workspace: { files: { "/repo/old.ts": "x" } },
    execs: ["deleteArgs"],
    output: ["Deleted /repo/old.ts."],
    variant: "deleteToolCall",
    check: (workspace) => expect(workspace.files.has("/repo/old.ts")).toBe(false),
  },
  {
    name: "shell",
    arguments: { command: "npm test", description: "Runs the tests.", working_directory: "/repo" },
    workspace: {
      shell: () => ({ stdout: ["ok 1\n", "ok 2\n"], stderr: ["warn\r\n"], exitCode: 1 }),
    },
    execs: ["shellStreamArgs"],
    execArgs: ([exec]) =>
      expect(exec!.message.value).toMatchObject({ command: "npm test", workingDirectory: "/repo" }),
    output: ["Exit code: 1\n\nstdout:\nok 1\nok 2\n\n\nstderr:\nwarn\n"],
    variant: "shellToolCall",
    check: (_workspace, turn) =>
      expect(
        updatesOf(turn, "shellOutputDelta").map((update) =>
          update.message.case === "shellOutputDelta" ? update.message.value.event.case : "",
        ),
      ).toEqual(["start", "stdout", "stdout", "stderr", "exit"]),
  },
  {
    name: "read_lints",
    arguments: { paths: ["/repo/a.ts", "/repo/b.ts"] },
    workspace: {
      files: { "/repo/a.ts": "", "/repo/b.ts": "" },
      diagnostics: {
        "/repo/a.ts": [
          {
            severity: 1,
            message: "Type 'string' is not assignable to type 'number'.",
            source: "ts",
            code: "2322",
            range: { start: { line: 3, column: 7 }, end: { line: 3, column: 9 } },
          },
        ],
      },
    },
    execs: ["diagnosticsArgs", "diagnosticsArgs"],
    output: [
      "/repo/a.ts: 1 diagnostic\n  3:7 error: Type 'string' is not assignable to type 'number'. [ts 2322]\n/repo/b.ts: no diagnostics.",
    ],
    variant: "readLintsToolCall",
  },
  {
    name: "mcp__db__query",
    arguments: { sql: "select 1" },
    withContext: true,
    workspace: {
      mcp: (args) => ({
        result: {
          case: "success",
          value: {
            content: [
              {
                content: {
                  case: "text",
                  value: { text: `ran ${String(args.args.sql?.kind.value)}` },
                },
              },
            ],
          },
        },
      }),
    },
    execs: ["mcpArgs"],
    execArgs: ([exec]) =>
      expect(exec!.message.value).toMatchObject({
        name: "db-query",
        providerIdentifier: "db",
        toolName: "query",
      }),
    output: ["ran select 1"],
    variant: "mcpToolCall",
  },
];

describe("the Cursor tool bridge on a real gateway process", () => {
  for (const tool of toolCases) {
    it(`${tool.name}: the model's arguments reach the exec, the IDE's result the next body, the UI its variant`, async () => {
      const workspace = new IdeWorkspace(tool.workspace);
      const callId = `call_${tool.name}`;
      const { turn, requests } = await toolTurn({
        conversationId: `tool-${tool.name}`,
        calls: [{ name: tool.name, arguments: JSON.stringify(tool.arguments), callId }],
        workspace,
        ...(tool.withContext === true ? { withContext: true } : {}),
      });
      expect(turn.end).toEqual({});
      expect(turn.appendErrors).toEqual([]);
      const execs = execsOf(turn);
      expect(execs.map((exec) => exec.message.case)).toEqual(tool.execs);
      // Ids unique in the stream, exec ids naming the kind.
      expect(new Set(execs.map((exec) => exec.id)).size).toBe(execs.length);
      tool.execArgs?.(execs);
      expect(requests).toHaveLength(2);
      const output = toolOutput(requests[1]!.body, callId);
      for (const part of tool.output) expect(output).toContain(part);
      expect(completedVariant(turn, callId)?.case).toBe(tool.variant);
      expect(turn.text).toBe("Done.");
      tool.check?.(workspace, turn);
    });
  }

  it("todo_write is kept by the gateway: the state's todos, an update_todos call, merged next turn", async () => {
    const conversationId = "tool-todos";
    const workspace = new IdeWorkspace();
    const first = await toolTurn({
      conversationId,
      calls: [
        {
          name: "todo_write",
          arguments: JSON.stringify({
            merge: false,
            todos: [
              { id: "1", content: "Read the code", status: "in_progress" },
              { id: "2", content: "Fix it", status: "pending" },
            ],
          }),
          callId: "call_todo_1",
        },
      ],
      workspace,
    });
    expect(first.turn.end).toEqual({});
    expect(execsOf(first.turn)).toEqual([]);
    expect(completedVariant(first.turn, "call_todo_1")?.case).toBe("updateTodosToolCall");
    expect(first.turn.checkpoints.at(-1)!.todos).toHaveLength(2);
    expect(toolOutput(first.requests[1]!.body, "call_todo_1")).toBe(
      "Todo list (2 items):\n- [in_progress] 1: Read the code\n- [pending] 2: Fix it",
    );
    const { ide, transport } = scriptedIde({
      url: gateway.url,
      protocol: "h1",
      options: { workspace },
    });
    try {
      // The next turn continues from the state the IDE echoes.
      ide.setState(conversationId, first.turn.checkpoints.at(-1));
      const before = provider.fake.requests.length;
      provider.fake.enqueue(
        {
          type: "tool-calls",
          calls: [
            {
              name: "todo_write",
              arguments: JSON.stringify({ merge: true, todos: [{ id: "1", status: "completed" }] }),
              callId: "call_todo_2",
            },
          ],
        },
        { type: "text", text: "Updated." },
      );
      const second = await ide.runTurn({ conversationId, text: "next" });
      expect(second.end).toEqual({});
      expect(toolOutput(provider.fake.requests[before + 1]!.body, "call_todo_2")).toBe(
        "Todo list (2 items):\n- [completed] 1: Read the code\n- [pending] 2: Fix it",
      );
    } finally {
      transport.close();
    }
  });

  it("ask_question and create_plan go out as interaction queries and wait for the answers", async () => {
    const workspace = new IdeWorkspace({
      answerQuestion: () => ({
        result: {
          case: "success",
          value: {
            answers: [{ questionId: "db", selectedOptionIds: ["pg"], freeformText: "v16" }],
          },
        },
      }),
      answerPlan: () => ({ result: { case: "error", value: { error: "too broad" } } }),
    });
    const { turn, requests } = await toolTurn({
      conversationId: "tool-questions",
      calls: [
        {
          name: "ask_question",
          arguments: JSON.stringify({
            questions: [
              {
                id: "db",
                prompt: "Which database?",
                options: [
                  { id: "pg", label: "PostgreSQL" },
                  { id: "sqlite", label: "SQLite" },
                ],
              },
            ],
          }),
          callId: "call_ask",
        },
        {
          name: "create_plan",
          arguments: JSON.stringify({ name: "Plan", overview: "Do it.", plan: "# Steps" }),
          callId: "call_plan",
        },
      ],
      workspace,
    });
    expect(turn.end).toEqual({});
    expect(turn.sequence.filter((kind) => kind === "interactionQuery")).toHaveLength(2);
    expect(toolOutput(requests[1]!.body, "call_ask")).toBe(
      'The user answered:\ndb: PostgreSQL; "v16"',
    );
    expect(toolOutput(requests[1]!.body, "call_plan")).toBe(
      "The user did not accept the plan: too broad.",
    );
    expect(completedVariant(turn, "call_ask")?.case).toBe("askQuestionToolCall");
    expect(completedVariant(turn, "call_plan")?.case).toBe("createPlanToolCall");
  });

  it("every failure the IDE reports is an error tool result and the run goes on; unavailable tools say so", async () => {
    const workspace = new IdeWorkspace({ shell: () => ({ exitCode: 0, rejected: "not now" }) });
    const { turn, requests } = await toolTurn({
      conversationId: "tool-failures",
      calls: [
        { name: "read_file", arguments: '{"path":"/repo/missing.ts"}', callId: "call_missing" },
        {
          name: "shell",
          arguments: '{"command":"rm -rf /","description":"x"}',
          callId: "call_rejected",
        },
        {
          name: "edit_file",
          arguments: '{"path":"/repo/missing.ts","old_string":"a","new_string":"b"}',
          callId: "call_edit",
        },
        { name: "web_search", arguments: '{"query":"x"}', callId: "call_web" },
        { name: "run_subagent", arguments: '{"description":"d","prompt":"p"}', callId: "call_sub" },
        { name: "read_file", arguments: '{"paht":"/x"}', callId: "call_bad_args" },
      ],
      workspace,
    });
    expect(turn.end).toEqual({});
    const body = requests[1]!.body;
    expect(toolOutput(body, "call_missing")).toBe("File not found: /repo/missing.ts.");
    expect(toolOutput(body, "call_rejected")).toBe("The user rejected the command: not now.");
    expect(toolOutput(body, "call_edit")).toBe("File not found: /repo/missing.ts.");
    expect(toolOutput(body, "call_web")).toContain("web_search is not available");
    expect(toolOutput(body, "call_sub")).toContain("run_subagent is not available");
    expect(toolOutput(body, "call_bad_args")).toContain("Invalid arguments for read_file");
    expect(turn.text).toBe("Done.");
  });

  it("edits to one path run in the model's order, reads of other files alongside", async () => {
    const workspace = new IdeWorkspace({ files: { "/repo/a.ts": "a\n", "/repo/b.ts": "b\n" } });
    const { turn, requests } = await toolTurn({
      conversationId: "tool-ordered-edits",
      calls: [
        {
          name: "edit_file",
          arguments: '{"path":"/repo/a.ts","old_string":"a","new_string":"ab"}',
          callId: "e1",
        },
        { name: "read_file", arguments: '{"path":"/repo/b.ts"}', callId: "r1" },
        {
          name: "edit_file",
          arguments: '{"path":"/repo/a.ts","old_string":"ab","new_string":"abc"}',
          callId: "e2",
        },
        { name: "read_file", arguments: '{"path":"/repo/a.ts"}', callId: "r2" },
      ],
      workspace,
    });
    expect(turn.end).toEqual({});
    expect(workspace.files.get("/repo/a.ts")).toBe("abc\n");
    expect(toolOutput(requests[1]!.body, "r2")).toBe("     1\tabc");
    const order = workspace.execs.map((exec) => `${exec.toolCallId}:${exec.kind}`);
    expect(order.indexOf("e1:write")).toBeLessThan(order.indexOf("e2:read"));
    expect(order.indexOf("e2:write")).toBeLessThan(order.indexOf("r2:read"));
    // The read of another file did not wait for the edits.
    expect(order.indexOf("r1:read")).toBeLessThan(order.indexOf("e1:write"));
  });

  it("a multi-step agent turn changes the workspace; every body extends the previous, cached tokens the best possible", async () => {
    const workspace = new IdeWorkspace({
      files: { "/repo/src/config.ts": "export const port = 80;\n" },
      shell: (_command, ws) => ({
        stdout: [
          `port is ${ws.files.get("/repo/src/config.ts")?.includes("8080") ? "8080" : "80"}\n`,
        ],
        exitCode: 0,
      }),
      diagnostics: { "/repo/src/config.ts": [] },
    });
    const before = provider.fake.requests.length;
    provider.fake.enqueue(
      {
        type: "tool-calls",
        calls: [{ name: "read_file", arguments: '{"path":"/repo/src/config.ts"}', callId: "s1" }],
      },
      {
        type: "tool-calls",
        calls: [{ name: "grep", arguments: '{"pattern":"port","path":"/repo"}', callId: "s2" }],
      },
      {
        type: "tool-calls",
        text: "Changing the port.",
        calls: [
          {
            name: "edit_file",
            arguments:
              '{"path":"/repo/src/config.ts","old_string":"port = 80","new_string":"port = 8080"}',
            callId: "s3",
          },
        ],
      },
      {
        type: "tool-calls",
        calls: [
          {
            name: "shell",
            arguments: '{"command":"node check.js","description":"Checks the port."}',
            callId: "s4",
          },
          { name: "read_lints", arguments: '{"paths":["/repo/src/config.ts"]}', callId: "s5" },
        ],
      },
      { type: "text", text: "The port is 8080 now." },
    );
    const { ide, transport } = scriptedIde({
      url: gateway.url,
      protocol: "h2c",
      options: { workspace },
    });
    try {
      const turn = await ide.runTurn({ conversationId: "multi-step", text: "use port 8080" });
      expect(turn.end).toEqual({});
      expect(turn.text).toContain("The port is 8080 now.");
      expect(workspace.files.get("/repo/src/config.ts")).toBe("export const port = 8080;\n");
      const requests = provider.fake.requests.slice(before);
      expect(requests).toHaveLength(5);
      expect(toolOutput(requests[4]!.body, "s4")).toContain("port is 8080");
      expect(toolOutput(requests[4]!.body, "s5")).toBe("/repo/src/config.ts: no diagnostics.");
      expect(
        prefixViolations(
          "openai-responses",
          requests.map((request) => request.body),
        ),
      ).toEqual([]);
      expect(cacheShortfalls(requests.slice(1))).toEqual([]);
      // One request id, one stream, one history: every call's result once.
      const history = await gateway.history("multi-step");
      for (const id of ["s1", "s2", "s3", "s4", "s5"]) {
        expect(
          history.filter((message) => message.kind === "tool-result" && message.callId === id),
        ).toHaveLength(1);
      }
    } finally {
      transport.close();
    }
  });

  it("malformed, unknown and duplicated exec results: a clear append error or a drop, never a second result", async () => {
    const workspace = new IdeWorkspace({ files: { "/repo/a.ts": "a\n" } });
    const before = provider.fake.requests.length;
    provider.fake.enqueue(
      {
        type: "tool-calls",
        calls: [
          { name: "read_file", arguments: '{"path":"/repo/a.ts"}', callId: "m1" },
          { name: "list_directory", arguments: '{"path":"/repo"}', callId: "m2" },
        ],
      },
      { type: "text", text: "Done." },
    );
    const { ide, transport } = scriptedIde({
      url: gateway.url,
      protocol: "h1",
      options: { workspace },
    });
    const raw = (message: Parameters<typeof create<typeof AgentClientMessageSchema>>[1]) => ({
      append: toBinary(AgentClientMessageSchema, create(AgentClientMessageSchema, message)),
    });
    let lsId = 0;
    try {
      const turn = await ide.runTurn({
        conversationId: "tool-malformed",
        text: "go",
        // The read is answered normally (then duplicated); the ls gets a result of the wrong kind.
        execPolicy: (request) =>
          "message" in request && request.message.case === "lsArgs" ? "hold" : "answer",
        onMessage: (message) => {
          if (message.message.case !== "execServerMessage") return undefined;
          const exec = message.message.value;
          if (exec.message.case === "readArgs") {
            const [answer] = workspace.answer(exec);
            return { append: toBinary(AgentClientMessageSchema, answer!) };
          }
          lsId = exec.id;
          // A read result for the ls exec: malformed for its kind.
          return raw({
            message: {
              case: "execClientMessage",
              value: create(ExecClientMessageSchema, {
                id: exec.id,
                execId: exec.execId,
                message: {
                  case: "readResult",
                  value: { result: { case: "fileNotFound", value: { path: "/x" } } },
                },
              }),
            },
          });
        },
      });
      expect(turn.end).toEqual({});
      expect(lsId).toBeGreaterThan(0);
      // The duplicated read answer and the wrongly typed ls answer were refused, precisely.
      expect(turn.appendErrors.length).toBeGreaterThanOrEqual(2);
      expect(turn.appendErrors.map((error) => error.body).join("\n")).toMatch(
        /answers no pending exec/,
      );
      expect(turn.appendErrors.map((error) => error.body).join("\n")).toMatch(
        /answers a ls exec with readResult/,
      );
      const requests = provider.fake.requests.slice(before);
      expect(requests).toHaveLength(2);
      expect(countToolOutputs(requests[1]!.body, "m1")).toBe(1);
      expect(countToolOutputs(requests[1]!.body, "m2")).toBe(1);
      expect(toolOutput(requests[1]!.body, "m2")).toContain(
        "the editor answered ls with a readResult",
      );
      // A result for an exec that never existed, after the turn: refused, nothing changes.
      const history = await gateway.history("tool-malformed");
      const stray = await ide.append({
        requestId: turn.requestId,
        seqno: 99,
        message: toBinary(
          AgentClientMessageSchema,
          create(AgentClientMessageSchema, {
            message: {
              case: "execClientControlMessage",
              value: create(ExecClientControlMessageSchema, {
                message: { case: "throw", value: { id: 4242, error: "boom" } },
              }),
            },
          }),
        ),
      });
      expect(stray.status).toBeGreaterThanOrEqual(400);
      expect(await gateway.history("tool-malformed")).toEqual(history);
    } finally {
      transport.close();
    }
  });

  it("an exec throw and a stream_close without a result become error results; cancel aborts pending execs", async () => {
    const workspace = new IdeWorkspace({ files: { "/repo/a.ts": "a\n" } });
    const before = provider.fake.requests.length;
    provider.fake.enqueue(
      {
        type: "tool-calls",
        calls: [
          { name: "read_file", arguments: '{"path":"/repo/a.ts"}', callId: "t1" },
          { name: "list_directory", arguments: '{"path":"/repo"}', callId: "t2" },
        ],
      },
      { type: "text", text: "Done." },
    );
    const { ide, transport } = scriptedIde({
      url: gateway.url,
      protocol: "h1",
      options: { workspace },
    });
    const control = (
      message: Parameters<typeof create<typeof ExecClientControlMessageSchema>>[1],
    ) => ({
      append: toBinary(
        AgentClientMessageSchema,
        create(AgentClientMessageSchema, {
          message: {
            case: "execClientControlMessage",
            value: create(ExecClientControlMessageSchema, message),
          },
        }),
      ),
    });
    try {
      const turn = await ide.runTurn({
        conversationId: "tool-throw",
        text: "go",
        execPolicy: () => "hold",
        onMessage: (message) => {
          if (message.message.case !== "execServerMessage") return undefined;
          const exec = message.message.value;
          return exec.message.case === "readArgs"
            ? control({ message: { case: "throw", value: { id: exec.id, error: "EACCES" } } })
            : control({ message: { case: "streamClose", value: { id: exec.id } } });
        },
      });
      expect(turn.end).toEqual({});
      const body = provider.fake.requests[before + 1]!.body;
      expect(toolOutput(body, "t1")).toBe(
        "read_file did not complete: the editor failed to run it: EACCES.",
      );
      expect(toolOutput(body, "t2")).toBe(
        "list_directory did not complete: the editor closed the exec stream without a result.",
      );
      // Cancel while an exec waits: the IDE gets an abort for it, the head stays as it was.
      provider.reply = unexpectedCall;
      const history = await gateway.history("tool-throw");
      provider.fake.enqueue({
        type: "tool-calls",
        calls: [
          {
            name: "shell",
            arguments: '{"command":"sleep 100","description":"Waits."}',
            callId: "t3",
          },
        ],
      });
      let aborted: number | undefined;
      let shellId: number | undefined;
      const cancelled = await ide.runTurn({
        conversationId: "tool-throw",
        text: "wait",
        execPolicy: () => "hold",
        onMessage: (message) => {
          if (message.message.case === "execServerMessage") {
            shellId = message.message.value.id;
            return "cancel";
          }
          if (message.message.case === "execServerControlMessage") {
            aborted = message.message.value.message.value?.id;
          }
          return undefined;
        },
      });
      expect(cancelled.end.error?.code).toBe("canceled");
      expect(aborted).toBe(shellId);
      const after = await gateway.history("tool-throw");
      // The round's assistant message is recorded (the calls are pending), nothing else.
      expect(after.slice(0, history.length)).toEqual(history);
      expect(
        after.filter((message) => message.kind === "tool-result" && message.callId === "t3"),
      ).toEqual([]);
    } finally {
      transport.close();
    }
  });
});

describe("kill -9 while a round waits for the IDE", () => {
  it("10 seeded trials: the IDE's resume continues the round, no call runs twice, no message is stored twice", async () => {
    const trialFolders = temporaryFolders("cursor-wire-tools-kill");
    const trialProvider = await startScriptedProvider();
    try {
      for (let trial = 0; trial < 10; trial += 1) {
        const random = seededRandom(1000 + trial);
        const calls = Array.from({ length: 3 + randomInt(random, 3) }, (_, index) => ({
          name: "read_file",
          arguments: JSON.stringify({ path: `/repo/f${index}.ts` }),
          callId: `k${trial}_${index}`,
        }));
        // Which calls the IDE answers before the kill; at least one waits.
        const waiting = new Set(
          calls.filter((_, index) => index === 0 || random() < 0.4).map((call) => call.callId),
        );
        const files = Object.fromEntries(
          calls.map((_, index) => [`/repo/f${index}.ts`, `file ${index}\n`]),
        );
        const workspace = new IdeWorkspace({ files });
        const dataDir = trialFolders.create();
        const conversationId = `kill-${trial}`;
        let gw = await startWireGateway({ provider: trialProvider, dataDir });
        const { ide, transport } = scriptedIde({
          url: gw.url,
          protocol: "h1",
          options: { workspace },
        });
        trialProvider.fake.enqueue({ type: "tool-calls", calls });
        const answered = calls.length - waiting.size;
        let killed: Promise<unknown> | undefined;
        const first = await ide
          .runTurn({
            conversationId,
            text: "read them all",
            execPolicy: (request) =>
              "message" in request && waiting.has(request.message.value?.toolCallId ?? "")
                ? "hold"
                : "answer",
            onMessage: (message) => {
              // Kill once the checkpoint records every answered call of the round.
              if (killed !== undefined || message.message.case !== "conversationCheckpointUpdate")
                return undefined;
              const entry = message.message.value.pendingToolCalls[0];
              const settled =
                entry === undefined
                  ? 0
                  : ((
                      JSON.parse(entry) as {
                        providerOptions?: { cursorGateway?: { settled?: unknown[] } };
                      }
                    ).providerOptions?.cursorGateway?.settled?.length ?? 0);
              if (settled === answered && entry !== undefined) killed = gw.process.kill();
              return undefined;
            },
          })
          // The stream breaks when the process dies.
          .catch(() => undefined);
        await killed;
        transport.close();
        expect(killed).toBeDefined();
        expect(first?.end).not.toEqual({});
        const ranBefore = new Map(calls.map((call) => [call.callId, workspace.runs(call.callId)]));
        gw = await startWireGateway({ provider: trialProvider, dataDir });
        const resumedIde = scriptedIde({ url: gw.url, protocol: "h1", options: { workspace } });
        try {
          resumedIde.ide.setState(conversationId, ide.stateOf(conversationId));
          const before = trialProvider.fake.requests.length;
          trialProvider.fake.enqueue({ type: "text", text: "All read." });
          const resumed = await resumedIde.ide.runTurn({
            conversationId,
            action: { action: { case: "resumeAction", value: {} } },
          });
          expect(resumed.end).toEqual({});
          expect(resumed.text).toBe("All read.");
          for (const call of calls) {
            // Answered calls ran once before the kill and not again; waiting ones once after.
            expect(workspace.runs(call.callId)).toBe(1);
            expect(ranBefore.get(call.callId)).toBe(waiting.has(call.callId) ? 0 : 1);
          }
          const body = trialProvider.fake.requests[before]!.body;
          calls.forEach((call, index) => {
            expect(countToolOutputs(body, call.callId)).toBe(1);
            expect(toolOutput(body, call.callId)).toBe(`     1\tfile ${index}`);
          });
          const history = await gw.history(conversationId);
          const ids = history.map((message) => message.id);
          expect(new Set(ids).size).toBe(ids.length);
        } finally {
          resumedIde.transport.close();
          await gw.stop();
        }
      }
    } finally {
      await killAllGatewayProcesses();
      await trialProvider.fake.close();
      trialFolders.removeAll();
    }
  }, 180_000);
});
