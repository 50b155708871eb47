import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  AgentClientMessage,
  AskQuestionArgs,
  CreatePlanArgs,
  ExecServerMessage,
  InteractionQuery,
  McpArgs,
  AskQuestionResultSchema,
  CreatePlanResultSchema,
} from "../gen/agent_v1_pb.js";
import {
  AgentClientMessageSchema,
  DiagnosticSchema,
  ExecClientControlMessageSchema,
  ExecClientMessageSchema,
  GrepUnionResultSchema,
  InteractionResponseSchema,
  LsDirectoryTreeNodeSchema,
  LsDirectoryTreeNode_FileSchema,
  McpResultSchema,
} from "../gen/agent_v1_pb.js";

/** What the workspace's shell does with a command. */
export interface IdeShellRun {
  readonly stdout?: readonly string[];
  readonly stderr?: readonly string[];
  readonly exitCode: number;
  /** The user rejects the command instead. */
  readonly rejected?: string;
}

export interface IdeWorkspaceOptions {
  /** Absolute path → file text. */
  readonly files?: Readonly<Record<string, string>>;
  /** Absolute path → the diagnostics the editor shows for it. */
  readonly diagnostics?: Readonly<
    Record<string, readonly MessageInitShape<typeof DiagnosticSchema>[]>
  >;
  /** Runs a command; may change `workspace.files`. Default: exit 0, no output. */
  readonly shell?: (command: string, workspace: IdeWorkspace) => IdeShellRun;
  /** Answers an MCP call. Default: `tool_not_found`. */
  readonly mcp?: (args: McpArgs) => MessageInitShape<typeof McpResultSchema>;
  /** Answers `ask_question`. Default: the first option of every question. */
  readonly answerQuestion?: (
    args: AskQuestionArgs,
  ) => MessageInitShape<typeof AskQuestionResultSchema>;
  /** Answers `create_plan`. Default: accepted. */
  readonly answerPlan?: (args: CreatePlanArgs) => MessageInitShape<typeof CreatePlanResultSchema>;
}

/** One exec the workspace ran (the count per tool call proves nothing runs twice). */
export interface IdeExecRecord {
  readonly id: number;
  readonly execId: string;
  readonly kind: string;
  readonly toolCallId: string;
  readonly path?: string;
}

function clientMessage(
  message: MessageInitShape<typeof AgentClientMessageSchema>["message"],
): AgentClientMessage {
  return create(AgentClientMessageSchema, { message });
}

function globRegExp(glob: string): RegExp {
  let source = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === "*" && glob[index + 1] === "*") {
      source += glob[index + 2] === "/" ? "(?:.*/)?" : ".*";
      index += glob[index + 2] === "/" ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/gu, "\\$&");
  }
  // Patterns without a slash match at any depth (the catalog's glob rule).
  return new RegExp(glob.includes("/") ? `(?:^|/)${source}$` : `(?:^|/)${source}$`, "u");
}

/**
 * An in-memory editor workspace for `ScriptedIdeClient`: it answers the gateway's execs (read,
 * ls, grep in both modes, write, delete, diagnostics, streaming shell, MCP) and interaction
 * queries the way the IDE does, and records every exec it ran.
 */
export class IdeWorkspace {
  readonly files: Map<string, string>;
  readonly execs: IdeExecRecord[] = [];
  readonly #options: IdeWorkspaceOptions;

  constructor(options: IdeWorkspaceOptions = {}) {
    this.#options = options;
    this.files = new Map(Object.entries(options.files ?? {}));
  }

  /** How many execs of a kind ran for one model tool call. */
  runs(toolCallId: string, kind?: string): number {
    return this.execs.filter(
      (exec) => exec.toolCallId === toolCallId && (kind === undefined || exec.kind === kind),
    ).length;
  }

  /** The client messages answering one exec, in the order the IDE sends them. */
  answer(exec: ExecServerMessage): AgentClientMessage[] {
    const request = exec.message;
    const reply = (message: MessageInitShape<typeof ExecClientMessageSchema>["message"]) =>
      clientMessage({
        case: "execClientMessage",
        value: create(ExecClientMessageSchema, { id: exec.id, execId: exec.execId, message }),
      });
    const record = (kind: string, toolCallId: string, path?: string) =>
      this.execs.push({
        id: exec.id,
        execId: exec.execId,
        kind,
        toolCallId,
        ...(path === undefined ? {} : { path }),
      });
    switch (request.case) {
      case "readArgs": {
        const { path, offset, limit, toolCallId } = request.value;
        record("read", toolCallId, path);
        const text = this.files.get(path);
        if (text === undefined) {
          return [
            reply({
              case: "readResult",
              value: { result: { case: "fileNotFound", value: { path } } },
            }),
          ];
        }
        const lines = text.split("\n");
        const ranged = offset !== undefined || limit !== undefined;
        const start = (offset ?? 1) - 1;
        const content = ranged
          ? lines.slice(start, limit === undefined ? undefined : start + limit).join("\n")
          : text;
        return [
          reply({
            case: "readResult",
            value: {
              result: {
                case: "success",
                value: {
                  path,
                  output: { case: "content", value: content },
                  totalLines: lines.length,
                  fileSize: BigInt(Buffer.byteLength(text)),
                  rangeApplied: ranged,
                },
              },
            },
          }),
        ];
      }
      case "writeArgs": {
        const { path, fileText, toolCallId } = request.value;
        record("write", toolCallId, path);
        this.files.set(path, fileText);
        return [
          reply({
            case: "writeResult",
            value: {
              result: {
                case: "success",
                value: {
                  path,
                  linesCreated: fileText.split("\n").length,
                  fileSize: Buffer.byteLength(fileText),
                  fileContentAfterWrite: fileText,
                },
              },
            },
          }),
        ];
      }
      case "deleteArgs": {
        const { path, toolCallId } = request.value;
        record("delete", toolCallId, path);
        const previous = this.files.get(path);
        if (previous === undefined) {
          return [
            reply({
              case: "deleteResult",
              value: { result: { case: "fileNotFound", value: { path } } },
            }),
          ];
        }
        this.files.delete(path);
        return [
          reply({
            case: "deleteResult",
            value: {
              result: {
                case: "success",
                value: {
                  path,
                  deletedFile: path,
                  fileSize: BigInt(Buffer.byteLength(previous)),
                  prevContent: previous,
                },
              },
            },
          }),
        ];
      }
      case "lsArgs": {
        const { path, toolCallId } = request.value;
        record("ls", toolCallId, path);
        const root = path.endsWith("/") ? path : `${path}/`;
        const dirs = new Set<string>();
        const files: string[] = [];
        for (const file of [...this.files.keys()].sort()) {
          if (!file.startsWith(root)) continue;
          const rest = file.slice(root.length);
          const slash = rest.indexOf("/");
          if (slash < 0) files.push(rest);
          else dirs.add(rest.slice(0, slash));
        }
        return [
          reply({
            case: "lsResult",
            value: {
              result: {
                case: "success",
                value: {
                  directoryTreeRoot: create(LsDirectoryTreeNodeSchema, {
                    absPath: path,
                    childrenDirs: [...dirs].map((dir) =>
                      create(LsDirectoryTreeNodeSchema, { absPath: `${root}${dir}` }),
                    ),
                    childrenFiles: files.map((name) =>
                      create(LsDirectoryTreeNode_FileSchema, { name }),
                    ),
                    childrenWereProcessed: true,
                    numFiles: files.length,
                  }),
                },
              },
            },
          }),
        ];
      }
      case "grepArgs": {
        const args = request.value;
        record(
          args.outputMode === "files_with_matches" && args.pattern === "" ? "glob" : "grep",
          args.toolCallId,
          args.path,
        );
        const under = args.path ?? "/";
        const glob = args.glob === undefined ? undefined : globRegExp(args.glob);
        const pattern =
          args.pattern === ""
            ? undefined
            : new RegExp(args.pattern, args.caseInsensitive === true ? "iu" : "u");
        const candidates = [...this.files.keys()]
          .sort()
          .filter((file) => file.startsWith(under) && (glob === undefined || glob.test(file)));
        const mode = args.outputMode ?? "content";
        let union: MessageInitShape<typeof GrepUnionResultSchema>["result"];
        if (mode === "files_with_matches") {
          const files = candidates.filter(
            (file) =>
              pattern === undefined ||
              this.files
                .get(file)!
                .split("\n")
                .some((line) => pattern.test(line)),
          );
          union = { case: "files", value: { files, totalFiles: files.length } };
        } else if (mode === "count") {
          const counts = candidates
            .map((file) => ({
              file,
              count: this.files
                .get(file)!
                .split("\n")
                .filter((line) => pattern?.test(line) ?? true).length,
            }))
            .filter((entry) => entry.count > 0);
          union = { case: "count", value: { counts, totalFiles: counts.length } };
        } else {
          const matches = candidates
            .map((file) => ({
              file,
              matches: this.files
                .get(file)!
                .split("\n")
                .flatMap((line, index) =>
                  (pattern?.test(line) ?? true) ? [{ lineNumber: index + 1, content: line }] : [],
                ),
            }))
            .filter((entry) => entry.matches.length > 0);
          union = { case: "content", value: { matches } };
        }
        return [
          reply({
            case: "grepResult",
            value: {
              result: {
                case: "success",
                value: {
                  pattern: args.pattern,
                  path: under,
                  outputMode: mode,
                  workspaceResults: { [under]: create(GrepUnionResultSchema, { result: union }) },
                },
              },
            },
          }),
        ];
      }
      case "diagnosticsArgs": {
        const { path, toolCallId } = request.value;
        record("diagnostics", toolCallId, path);
        if (path !== "" && !this.files.has(path)) {
          return [
            reply({
              case: "diagnosticsResult",
              value: { result: { case: "fileNotFound", value: { path } } },
            }),
          ];
        }
        const diagnostics = (this.#options.diagnostics?.[path] ?? []).map((item) =>
          create(DiagnosticSchema, item),
        );
        return [
          reply({
            case: "diagnosticsResult",
            value: {
              result: {
                case: "success",
                value: { path, diagnostics, totalDiagnostics: diagnostics.length },
              },
            },
          }),
        ];
      }
      case "shellStreamArgs": {
        const { command, workingDirectory, toolCallId } = request.value;
        record("shell", toolCallId);
        const run = this.#options.shell?.(command, this) ?? { exitCode: 0 };
        const event = (value: MessageInitShape<typeof ExecClientMessageSchema>["message"]) =>
          reply(value);
        if (run.rejected !== undefined) {
          return [
            event({
              case: "shellStream",
              value: {
                event: {
                  case: "rejected",
                  value: { command, workingDirectory, reason: run.rejected },
                },
              },
            }),
          ];
        }
        return [
          event({ case: "shellStream", value: { event: { case: "start", value: {} } } }),
          ...(run.stdout ?? []).map((data) =>
            event({ case: "shellStream", value: { event: { case: "stdout", value: { data } } } }),
          ),
          ...(run.stderr ?? []).map((data) =>
            event({ case: "shellStream", value: { event: { case: "stderr", value: { data } } } }),
          ),
          event({
            case: "shellStream",
            value: {
              event: { case: "exit", value: { code: run.exitCode, cwd: workingDirectory } },
            },
          }),
          clientMessage({
            case: "execClientControlMessage",
            value: create(ExecClientControlMessageSchema, {
              message: { case: "streamClose", value: { id: exec.id } },
            }),
          }),
        ];
      }
      case "mcpArgs": {
        record("mcp", request.value.toolCallId);
        const result =
          this.#options.mcp?.(request.value) ??
          ({ result: { case: "toolNotFound", value: { name: request.value.name } } } as const);
        return [reply({ case: "mcpResult", value: create(McpResultSchema, result) })];
      }
      case undefined:
        return [];
      default: {
        const exhaustive: never = request;
        throw new Error(`unknown exec ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /** The `interaction_response` answering a query. */
  answerQuery(query: InteractionQuery): AgentClientMessage | undefined {
    const respond = (result: MessageInitShape<typeof InteractionResponseSchema>["result"]) =>
      clientMessage({
        case: "interactionResponse",
        value: create(InteractionResponseSchema, { id: query.id, result }),
      });
    switch (query.query.case) {
      case "askQuestionInteractionQuery": {
        const { args, toolCallId } = query.query.value;
        this.execs.push({ id: query.id, execId: "", kind: "ask_question", toolCallId });
        const result =
          args === undefined
            ? { result: { case: "error" as const, value: { errorMessage: "no questions" } } }
            : (this.#options.answerQuestion?.(args) ?? {
                result: {
                  case: "success" as const,
                  value: {
                    answers: args.questions.map((question) => ({
                      questionId: question.id,
                      selectedOptionIds: question.options.slice(0, 1).map((option) => option.id),
                    })),
                  },
                },
              });
        return respond({ case: "askQuestionInteractionResponse", value: { result } });
      }
      case "createPlanRequestQuery": {
        const { args, toolCallId } = query.query.value;
        this.execs.push({ id: query.id, execId: "", kind: "create_plan", toolCallId });
        const result =
          args === undefined
            ? { result: { case: "error" as const, value: { error: "no plan" } } }
            : (this.#options.answerPlan?.(args) ?? {
                result: { case: "success" as const, value: {} },
              });
        return respond({ case: "createPlanRequestResponse", value: { result } });
      }
      case undefined:
        return undefined;
      default: {
        const exhaustive: never = query.query;
        throw new Error(`unknown query ${JSON.stringify(exhaustive)}`);
      }
    }
  }
}
