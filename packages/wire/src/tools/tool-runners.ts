import { create, fromJson } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { Value } from "@bufbuild/protobuf/wkt";
import type {
  AgentServerMessage,
  Diagnostic,
  GrepResult,
  LsDirectoryTreeNode,
  ShellStream,
  TodoItem,
  ToolCall,
} from "../gen/agent_v1_pb.js";
import {
  AgentServerMessageSchema,
  AskQuestionArgsSchema,
  AskQuestionArgs_OptionSchema,
  AskQuestionArgs_QuestionSchema,
  AskQuestionInteractionQuerySchema,
  AskQuestionToolCallSchema,
  CreatePlanArgsSchema,
  CreatePlanRequestQuerySchema,
  CreatePlanToolCallSchema,
  DeleteArgsSchema,
  DiagnosticsArgsSchema,
  EditResultSchema,
  EditSuccessSchema,
  FileDiagnosticsSchema,
  GlobToolResultSchema,
  GlobToolSuccessSchema,
  GrepArgsSchema,
  InteractionUpdateSchema,
  LsArgsSchema,
  McpArgsSchema,
  McpToolErrorSchema,
  McpToolResultSchema,
  ReadArgsSchema,
  ReadLintsToolResultSchema,
  ReadLintsToolSuccessSchema,
  ReadToolResultSchema,
  ReadToolSuccessSchema,
  ShellArgsSchema,
  ShellFailureSchema,
  ShellOutputDeltaUpdateSchema,
  ShellResultSchema,
  ShellSuccessSchema,
  TodoItemSchema,
  TodoStatus,
  ToolCallSchema,
  UpdateTodosArgsSchema,
  UpdateTodosResultSchema,
  UpdateTodosSuccessSchema,
  UpdateTodosToolCallSchema,
  WriteArgsSchema,
} from "../gen/agent_v1_pb.js";
import { toolCallDisplay } from "../updates/tool-call-display.js";
import type { ExecChannel, ExecOutcome } from "./exec-channel.js";
import { lineDiff } from "./line-diff.js";
import { isCatalogToolName, parseMcpArgs, parseToolArgs } from "./tool-args.js";
import type { CatalogToolName, ToolArgs } from "./tool-args.js";
import { capItems, capText, normalizeLf, toolItemCaps, toolTextCaps } from "./tool-text.js";
import { applyTodoWrite, renderTodos } from "./todos.js";

/** One call to run, as the model made it. */
export interface RunnableCall {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** A call's result: the model's text, and the completed `ToolCall` the IDE shows. */
export interface ToolRunOutcome {
  readonly output: string;
  readonly isError: boolean;
  readonly display?: ToolCall | undefined;
}

/** What a runner may use: the exec channel, the UI downlink, the gateway-kept state. */
export interface ToolRunContext {
  readonly channel: ExecChannel;
  readonly send: (message: AgentServerMessage) => void;
  readonly todos: { get(): readonly TodoItem[]; set(todos: readonly TodoItem[]): void };
  /** Exposed MCP tool names (`mcp__<server>__<tool>`) → the server and the tool's own name. */
  readonly mcpTools: ReadonlyMap<string, { readonly server: string; readonly tool: string }>;
}

/** A tool that has no backend on this gateway: the model gets this, always the same bytes. */
function toolUnavailableText(name: string): string {
  switch (name) {
    case "web_search":
      return "web_search is not available: this gateway has no web search backend configured. Answer from what you know and say that you could not search.";
    case "web_fetch":
      return "web_fetch is not available: this gateway has no web fetch backend configured. Answer from what you know and say that you could not fetch the page.";
    case "run_subagent":
      return "run_subagent is not available: this gateway does not start subagents in the Cursor editor yet. Do the task yourself with the other tools.";
    default:
      return `Tool ${name} is not available on this gateway.`;
  }
}

const failed = (output: string): ToolRunOutcome => ({ output, isError: true });

function execFailure(name: string, outcome: { reason: string }): ToolRunOutcome {
  return failed(`${name} did not complete: ${outcome.reason}.`);
}

const reasonSuffix = (reason: string) => (reason.trim() === "" ? "." : `: ${reason.trim()}.`);

/** The started `ToolCall` of a call (args only), for the runners to add their result to. */
function shown(call: RunnableCall): ToolCall | undefined {
  return toolCallDisplay(call);
}

/** Runs one model tool call. Never throws for anything the IDE or the model did. */
export async function runToolCall(
  call: RunnableCall,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  if (call.name.startsWith("mcp__")) return runMcp(call, context);
  if (!isCatalogToolName(call.name)) {
    return call.name === "web_search" || call.name === "web_fetch" || call.name === "run_subagent"
      ? failed(toolUnavailableText(call.name))
      : failed(`Unknown tool ${call.name}.`);
  }
  const name: CatalogToolName = call.name;
  switch (name) {
    case "read_file":
      return withArgs(call, name, (args) => runRead(call, args, context));
    case "list_directory":
      return withArgs(call, name, (args) => runList(call, args, context));
    case "glob":
      return withArgs(call, name, (args) => runGlob(call, args, context));
    case "grep":
      return withArgs(call, name, (args) => runGrep(call, args, context));
    case "write_file":
      return withArgs(call, name, (args) => runWrite(call, args, context));
    case "edit_file":
      return withArgs(call, name, (args) => runEdit(call, args, context));
    case "delete_file":
      return withArgs(call, name, (args) => runDelete(call, args, context));
    case "shell":
      return withArgs(call, name, (args) => runShell(call, args, context));
    case "read_lints":
      return withArgs(call, name, (args) => runLints(call, args, context));
    case "todo_write":
      return withArgs(call, name, (args) => Promise.resolve(runTodoWrite(call, args, context)));
    case "ask_question":
      return withArgs(call, name, (args) => runAskQuestion(call, args, context));
    case "create_plan":
      return withArgs(call, name, (args) => runCreatePlan(call, args, context));
    default: {
      const exhaustive: never = name;
      return failed(`Unknown tool ${String(exhaustive)}.`);
    }
  }
}

async function withArgs<N extends CatalogToolName>(
  call: RunnableCall,
  name: N,
  run: (args: ToolArgs<N>) => Promise<ToolRunOutcome>,
): Promise<ToolRunOutcome> {
  const parsed = parseToolArgs(name, call.arguments);
  return parsed.ok ? run(parsed.args) : failed(parsed.error);
}

// ------------------------------------------------------------------------------------------ read

type FullRead =
  | { ok: true; content: string; crlf: boolean; exists: true }
  | { ok: true; content: ""; crlf: false; exists: false }
  | { ok: false; error: string };

/** The whole file as text (for edit and write), LF-normalised. */
async function readWhole(
  call: RunnableCall,
  path: string,
  context: ToolRunContext,
): Promise<FullRead> {
  const outcome = await context.channel.exec({
    case: "readArgs",
    value: create(ReadArgsSchema, { path, toolCallId: call.callId }),
  });
  if (outcome.kind === "failure")
    return { ok: false, error: `reading ${path} failed: ${outcome.reason}` };
  if (outcome.result.case !== "readResult") return { ok: false, error: "unexpected result" };
  const result = outcome.result.value.result;
  switch (result.case) {
    case "success": {
      if (result.value.output.case !== "content") {
        return { ok: false, error: `${path} is a binary file; it cannot be edited as text` };
      }
      if (result.value.truncated) {
        return { ok: false, error: `${path} is too large to edit in one piece` };
      }
      const raw = result.value.output.value;
      return { ok: true, content: normalizeLf(raw), crlf: raw.includes("\r\n"), exists: true };
    }
    case "fileNotFound":
      return { ok: true, content: "", crlf: false, exists: false };
    default:
      return { ok: false, error: readFailureText(path, result) };
  }
}

type ReadFailure = Exclude<
  NonNullable<Extract<ExecOutcome, { kind: "result" }>["result"]>,
  { case: undefined }
>;

function readFailureText(
  path: string,
  result: Extract<ReadFailure, { case: "readResult" }>["value"]["result"],
): string {
  switch (result.case) {
    case "success":
      return `Read ${path}.`;
    case "error":
      return `Could not read ${path}${reasonSuffix(result.value.error)}`;
    case "rejected":
      return `The user rejected reading ${path}${reasonSuffix(result.value.reason)}`;
    case "fileNotFound":
      return `File not found: ${path}.`;
    case "permissionDenied":
      return `Permission denied reading ${path}.`;
    case "invalidFile":
      return `Cannot read ${path}${reasonSuffix(result.value.reason)}`;
    case undefined:
      return `The editor answered the read of ${path} without a result.`;
    default: {
      const exhaustive: never = result;
      return `Could not read ${path}: ${String(exhaustive)}.`;
    }
  }
}

function fileLines(content: string): string[] {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

async function runRead(
  call: RunnableCall,
  args: ToolArgs<"read_file">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const outcome = await context.channel.exec({
    case: "readArgs",
    value: create(ReadArgsSchema, {
      path: args.path,
      toolCallId: call.callId,
      ...(args.offset === undefined ? {} : { offset: args.offset }),
      ...(args.limit === undefined ? {} : { limit: args.limit }),
    }),
  });
  if (outcome.kind === "failure") return execFailure("read_file", outcome);
  if (outcome.result.case !== "readResult") return failed("read_file: unexpected result.");
  const result = outcome.result.value.result;
  if (result.case !== "success") {
    const output = readFailureText(args.path, result);
    return {
      output,
      isError: true,
      display: toolCallDisplay({ ...call, result: { output, isError: true } }),
    };
  }
  const success = result.value;
  const display = shown(call);
  if (success.output.case !== "content") {
    const size =
      success.output.case === "data" ? success.output.value.length : Number(success.fileSize);
    const output = `${args.path} is a binary file (${size} bytes); its content is not shown.`;
    if (display?.tool.case === "readToolCall") {
      display.tool.value.result = create(ReadToolResultSchema, {
        result: {
          case: "success",
          value: create(ReadToolSuccessSchema, {
            path: args.path,
            fileSize: Math.min(size, 0xffffffff),
          }),
        },
      });
    }
    return { output, isError: false, display };
  }
  const content = normalizeLf(success.output.value);
  let lines = fileLines(content);
  const start = args.offset ?? 1;
  // An editor that ignored the range sent the whole file: apply it here, so lines match numbers.
  if (!success.rangeApplied && (args.offset !== undefined || args.limit !== undefined)) {
    lines = lines.slice(start - 1, args.limit === undefined ? undefined : start - 1 + args.limit);
  }
  const body =
    lines.length === 0
      ? content === ""
        ? `${args.path} is empty.`
        : `No lines in ${args.path} from line ${start}.`
      : lines.map((line, index) => `${String(start + index).padStart(6)}\t${line}`).join("\n");
  const note = success.truncated
    ? "\n[truncated by the editor: the file is larger than what was returned]"
    : "";
  const output = capText(
    `${body}${note}`,
    toolTextCaps.read,
    "read a smaller range with offset and limit",
  );
  if (display?.tool.case === "readToolCall") {
    display.tool.value.result = create(ReadToolResultSchema, {
      result: {
        case: "success",
        value: create(ReadToolSuccessSchema, {
          output: { case: "content", value: capText(lines.join("\n"), toolTextCaps.read) },
          isEmpty: content === "",
          exceededLimit: success.truncated,
          totalLines: Math.max(0, success.totalLines),
          fileSize: Math.min(Number(success.fileSize), 0xffffffff),
          path: args.path,
        }),
      },
    });
  }
  return { output, isError: false, display };
}

// ------------------------------------------------------------------------------------------ ls

function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/u, "");
  const slash = trimmed.lastIndexOf("/");
  return slash < 0 ? trimmed : trimmed.slice(slash + 1);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function listEntries(node: LsDirectoryTreeNode): string[] {
  return [
    ...node.childrenDirs.map((dir) => `${baseName(dir.absPath)}/`),
    ...node.childrenFiles.map((file) => file.name),
  ].sort(byCodeUnit);
}

async function runList(
  call: RunnableCall,
  args: ToolArgs<"list_directory">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const outcome = await context.channel.exec({
    case: "lsArgs",
    value: create(LsArgsSchema, {
      path: args.path,
      ignore: args.ignore ?? [],
      toolCallId: call.callId,
    }),
  });
  if (outcome.kind === "failure") return execFailure("list_directory", outcome);
  if (outcome.result.case !== "lsResult") return failed("list_directory: unexpected result.");
  const lsResult = outcome.result.value;
  const result = lsResult.result;
  const display = shown(call);
  if (display?.tool.case === "lsToolCall") display.tool.value.result = lsResult;
  switch (result.case) {
    case "success":
    case "timeout": {
      const root = result.value.directoryTreeRoot;
      const entries = root === undefined ? [] : listEntries(root);
      const { kept, note } = capItems(entries, toolItemCaps.listEntries, "entries");
      const lines = [
        entries.length === 0 ? `${args.path} is empty.` : `${args.path}:`,
        ...kept,
        ...(note === undefined ? [] : [note]),
        ...(result.case === "timeout"
          ? ["[the editor timed out: the listing may be incomplete]"]
          : []),
      ];
      return { output: capText(lines.join("\n"), toolTextCaps.list), isError: false, display };
    }
    case "error":
      return {
        output: `Could not list ${args.path}${reasonSuffix(result.value.error)}`,
        isError: true,
        display,
      };
    case "rejected":
      return {
        output: `The user rejected listing ${args.path}${reasonSuffix(result.value.reason)}`,
        isError: true,
        display,
      };
    case undefined:
      return failed(`The editor answered the listing of ${args.path} without a result.`);
    default: {
      const exhaustive: never = result;
      return failed(`list_directory: ${String(exhaustive)}`);
    }
  }
}

// ------------------------------------------------------------------------------------------ glob, grep

async function grepExec(
  call: RunnableCall,
  args: Parameters<typeof create<typeof GrepArgsSchema>>[1],
  context: ToolRunContext,
): Promise<{ ok: true; result: GrepResult } | { ok: false; outcome: ToolRunOutcome }> {
  const outcome = await context.channel.exec({
    case: "grepArgs",
    value: create(GrepArgsSchema, { ...args, toolCallId: call.callId }),
  });
  if (outcome.kind === "failure") return { ok: false, outcome: execFailure(call.name, outcome) };
  if (outcome.result.case !== "grepResult") {
    return { ok: false, outcome: failed(`${call.name}: unexpected result.`) };
  }
  return { ok: true, result: outcome.result.value };
}

async function runGlob(
  call: RunnableCall,
  args: ToolArgs<"glob">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const answer = await grepExec(
    call,
    {
      pattern: "",
      glob: args.pattern,
      outputMode: "files_with_matches",
      ...(args.directory === undefined ? {} : { path: args.directory }),
    },
    context,
  );
  if (!answer.ok) return answer.outcome;
  const result = answer.result.result;
  if (result.case !== "success") {
    const output =
      result.case === "error"
        ? `glob failed${reasonSuffix(result.value.error)}`
        : "The editor answered glob without a result.";
    return {
      output,
      isError: true,
      display: toolCallDisplay({ ...call, result: { output, isError: true } }),
    };
  }
  const files: string[] = [];
  let truncatedByEditor = false;
  for (const key of Object.keys(result.value.workspaceResults).sort(byCodeUnit)) {
    const union = result.value.workspaceResults[key]!.result;
    if (union.case === "files") {
      files.push(...union.value.files);
      truncatedByEditor ||= union.value.clientTruncated;
    } else if (union.case === "content") {
      files.push(...union.value.matches.map((match) => match.file));
    } else if (union.case === "count") {
      files.push(...union.value.counts.map((count) => count.file));
    }
  }
  const unique = files.filter((file, index) => files.indexOf(file) === index);
  const { kept, note } = capItems(unique, toolItemCaps.globFiles, "files");
  const lines =
    unique.length === 0
      ? [`No files match ${args.pattern}.`]
      : [...kept, ...(note === undefined ? [] : [note])];
  if (truncatedByEditor) lines.push("[truncated by the editor: more files match]");
  const display = shown(call);
  if (display?.tool.case === "globToolCall") {
    display.tool.value.result = create(GlobToolResultSchema, {
      result: {
        case: "success",
        value: create(GlobToolSuccessSchema, {
          pattern: args.pattern,
          path: args.directory ?? "",
          files: [...kept],
          totalFiles: unique.length,
          clientTruncated: truncatedByEditor || note !== undefined,
        }),
      },
    });
  }
  return { output: capText(lines.join("\n"), toolTextCaps.glob), isError: false, display };
}

async function runGrep(
  call: RunnableCall,
  args: ToolArgs<"grep">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const mode = args.output_mode ?? "content";
  const answer = await grepExec(
    call,
    {
      pattern: args.pattern,
      outputMode: mode,
      ...(args.path === undefined ? {} : { path: args.path }),
      ...(args.glob === undefined ? {} : { glob: args.glob }),
      ...(args.type === undefined ? {} : { type: args.type }),
      ...(args.case_insensitive === undefined ? {} : { caseInsensitive: args.case_insensitive }),
      ...(args.multiline === undefined ? {} : { multiline: args.multiline }),
      ...(args.context_lines === undefined ? {} : { context: args.context_lines }),
      ...(args.head_limit === undefined ? {} : { headLimit: args.head_limit }),
    },
    context,
  );
  if (!answer.ok) return answer.outcome;
  const display = shown(call);
  if (display?.tool.case === "grepToolCall") display.tool.value.result = answer.result;
  const result = answer.result.result;
  if (result.case !== "success") {
    return {
      output:
        result.case === "error"
          ? `grep failed${reasonSuffix(result.value.error)}`
          : "The editor answered grep without a result.",
      isError: true,
      display,
    };
  }
  const lines: string[] = [];
  let matches = 0;
  let capped = false;
  let truncatedByEditor = false;
  for (const key of Object.keys(result.value.workspaceResults).sort(byCodeUnit)) {
    const union = result.value.workspaceResults[key]!.result;
    switch (union.case) {
      case "content":
        truncatedByEditor ||= union.value.clientTruncated;
        for (const file of union.value.matches) {
          for (const match of file.matches) {
            if (!match.isContextLine) {
              if (matches >= toolItemCaps.grepMatches) {
                capped = true;
                break;
              }
              matches += 1;
            }
            const separator = match.isContextLine ? "-" : ":";
            lines.push(
              `${file.file}${separator}${match.lineNumber}${separator}${normalizeLf(match.content)}`,
            );
          }
        }
        break;
      case "files":
        truncatedByEditor ||= union.value.clientTruncated;
        lines.push(...union.value.files);
        break;
      case "count":
        truncatedByEditor ||= union.value.clientTruncated;
        lines.push(...union.value.counts.map((count) => `${count.file}:${count.count}`));
        break;
      case undefined:
        break;
      default: {
        const exhaustive: never = union;
        lines.push(String(exhaustive));
      }
    }
  }
  if (lines.length === 0) lines.push(`No matches for ${args.pattern}.`);
  if (capped)
    lines.push(
      `[truncated: showing the first ${toolItemCaps.grepMatches} matches; narrow the search]`,
    );
  if (truncatedByEditor) lines.push("[truncated by the editor: there are more results]");
  return {
    output: capText(lines.join("\n"), toolTextCaps.grep, "narrow the search"),
    isError: false,
    display,
  };
}

// ------------------------------------------------------------------------------------------ write, edit

function editDisplay(
  call: RunnableCall,
  path: string,
  before: string,
  after: string,
): { display: ToolCall | undefined; diff: ReturnType<typeof lineDiff> } {
  const diff = lineDiff({ path, before, after });
  const display = shown(call);
  if (display?.tool.case === "editToolCall") {
    display.tool.value.result = create(EditResultSchema, {
      result: {
        case: "success",
        value: create(EditSuccessSchema, {
          path,
          linesAdded: diff.added,
          linesRemoved: diff.removed,
          diffString: diff.text,
          beforeFullFileContent: before,
          afterFullFileContent: after,
        }),
      },
    });
  }
  return { display, diff };
}

async function writeFile(
  call: RunnableCall,
  path: string,
  text: string,
  context: ToolRunContext,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const outcome = await context.channel.exec({
    case: "writeArgs",
    value: create(WriteArgsSchema, {
      path,
      fileText: text,
      toolCallId: call.callId,
      returnFileContentAfterWrite: true,
    }),
  });
  if (outcome.kind === "failure")
    return { ok: false, error: `writing ${path} failed: ${outcome.reason}` };
  if (outcome.result.case !== "writeResult") return { ok: false, error: "unexpected result" };
  const result = outcome.result.value.result;
  switch (result.case) {
    case "success":
      return { ok: true };
    case "permissionDenied":
      return {
        ok: false,
        error: `permission denied writing ${path}${reasonSuffix(result.value.error).slice(0, -1)}`,
      };
    case "noSpace":
      return { ok: false, error: `no space left on the device writing ${path}` };
    case "error":
      return {
        ok: false,
        error: `could not write ${path}${reasonSuffix(result.value.error).slice(0, -1)}`,
      };
    case "rejected":
      return {
        ok: false,
        error: `the user rejected the change to ${path}${reasonSuffix(result.value.reason).slice(0, -1)}`,
      };
    case undefined:
      return { ok: false, error: `the editor answered the write of ${path} without a result` };
    default: {
      const exhaustive: never = result;
      return { ok: false, error: String(exhaustive) };
    }
  }
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

async function runWrite(
  call: RunnableCall,
  args: ToolArgs<"write_file">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  // The hidden read gives the IDE its before/after view of the change (shown as an edit).
  const before = await readWhole(call, args.path, context);
  const written = await writeFile(call, args.path, args.contents, context);
  if (!written.ok) {
    const output = capitalized(written.error);
    return {
      output,
      isError: true,
      display: toolCallDisplay({ ...call, result: { output, isError: true } }),
    };
  }
  const after = normalizeLf(args.contents);
  const { display } = editDisplay(call, args.path, before.ok ? before.content : "", after);
  const lines = fileLines(after).length;
  const verb = before.ok && before.exists ? "Replaced the contents of" : "Created";
  return {
    output: `${verb} ${args.path} (${lines} line${lines === 1 ? "" : "s"}).`,
    isError: false,
    display,
  };
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) count += 1;
  return count;
}

async function runEdit(
  call: RunnableCall,
  args: ToolArgs<"edit_file">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const fail = (output: string): ToolRunOutcome => ({
    output,
    isError: true,
    display: toolCallDisplay({ ...call, result: { output, isError: true } }),
  });
  const oldString = normalizeLf(args.old_string);
  const newString = normalizeLf(args.new_string);
  if (oldString === newString) return fail("edit_file: new_string must differ from old_string.");
  const read = await readWhole(call, args.path, context);
  if (!read.ok) return fail(capitalized(read.error));
  if (!read.exists) return fail(`File not found: ${args.path}.`);
  const count = occurrences(read.content, oldString);
  if (count === 0) {
    return fail(
      `old_string was not found in ${args.path}. Read the file and copy the text exactly, including whitespace.`,
    );
  }
  if (count > 1 && args.replace_all !== true) {
    return fail(
      `old_string occurs ${count} times in ${args.path}; include more surrounding lines to make it unique, or set replace_all.`,
    );
  }
  const after =
    args.replace_all === true
      ? read.content.split(oldString).join(newString)
      : read.content.replace(oldString, () => newString);
  // The file keeps its line endings: the match is made on LF text, CRLF files are written as CRLF.
  const written = await writeFile(
    call,
    args.path,
    read.crlf ? after.replace(/\n/gu, "\r\n") : after,
    context,
  );
  if (!written.ok) return fail(capitalized(written.error));
  const { display, diff } = editDisplay(call, args.path, read.content, after);
  const output = `Edited ${args.path}: replaced ${count} occurrence${count === 1 ? "" : "s"} (+${diff.added} -${diff.removed} lines).\n${capText(diff.text, toolTextCaps.edit)}`;
  return { output: output.trimEnd(), isError: false, display };
}

// ------------------------------------------------------------------------------------------ delete

async function runDelete(
  call: RunnableCall,
  args: ToolArgs<"delete_file">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const outcome = await context.channel.exec({
    case: "deleteArgs",
    value: create(DeleteArgsSchema, { path: args.path, toolCallId: call.callId }),
  });
  if (outcome.kind === "failure") return execFailure("delete_file", outcome);
  if (outcome.result.case !== "deleteResult") return failed("delete_file: unexpected result.");
  const deleteResult = outcome.result.value;
  const display = shown(call);
  if (display?.tool.case === "deleteToolCall") display.tool.value.result = deleteResult;
  const result = deleteResult.result;
  const path = args.path;
  const error = (output: string): ToolRunOutcome => ({ output, isError: true, display });
  switch (result.case) {
    case "success":
      return { output: `Deleted ${path}.`, isError: false, display };
    case "fileNotFound":
      return error(`File not found: ${path}.`);
    case "notFile":
      return error(
        `${path} is not a file${result.value.actualType === "" ? "" : ` (it is a ${result.value.actualType})`}.`,
      );
    case "permissionDenied":
      return error(
        `Permission denied deleting ${path}${reasonSuffix(result.value.clientVisibleError)}`,
      );
    case "fileBusy":
      return error(`${path} is in use and was not deleted.`);
    case "rejected":
      return error(`The user rejected deleting ${path}${reasonSuffix(result.value.reason)}`);
    case "error":
      return error(`Could not delete ${path}${reasonSuffix(result.value.error)}`);
    case undefined:
      return failed(`The editor answered the delete of ${path} without a result.`);
    default: {
      const exhaustive: never = result;
      return failed(String(exhaustive));
    }
  }
}

// ------------------------------------------------------------------------------------------ shell

/** The IDE runs a foreground command this long before it stops it (the catalog's default). */
const defaultShellTimeoutMs = 120_000;
const displayStreamCap = 16 * 1024;

function shellDelta(
  event: Exclude<ShellStream["event"], { case: undefined }>,
): AgentServerMessage | undefined {
  if (
    event.case !== "stdout" &&
    event.case !== "stderr" &&
    event.case !== "exit" &&
    event.case !== "start"
  ) {
    return undefined;
  }
  return create(AgentServerMessageSchema, {
    message: {
      case: "interactionUpdate",
      value: create(InteractionUpdateSchema, {
        message: {
          case: "shellOutputDelta",
          value: create(ShellOutputDeltaUpdateSchema, { event }),
        },
      }),
    },
  });
}

function shellText({
  exitCode,
  stdout,
  stderr,
  aborted,
}: {
  exitCode: number;
  stdout: string;
  stderr: string;
  aborted: boolean;
}): string {
  const parts = [
    aborted ? `The command was stopped (exit code ${exitCode}).` : `Exit code: ${exitCode}`,
  ];
  const out = normalizeLf(stdout);
  const err = normalizeLf(stderr);
  if (out !== "") parts.push(`stdout:\n${capText(out, toolTextCaps.shellStream)}`);
  if (err !== "") parts.push(`stderr:\n${capText(err, toolTextCaps.shellStream)}`);
  if (out === "" && err === "") parts.push("(no output)");
  return parts.join("\n\n");
}

async function runShell(
  call: RunnableCall,
  args: ToolArgs<"shell">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  let stdout = "";
  let stderr = "";
  const workingDirectory = args.working_directory ?? "";
  const outcome = await context.channel.exec(
    {
      case: "shellStreamArgs",
      value: create(ShellArgsSchema, {
        command: args.command,
        workingDirectory,
        timeout: args.timeout_ms ?? defaultShellTimeoutMs,
        toolCallId: call.callId,
        isBackground: args.background === true,
        description: args.description,
      }),
    },
    (event) => {
      if (event.case === undefined) return false;
      const delta = shellDelta(event);
      if (delta !== undefined) context.send(delta);
      switch (event.case) {
        case "stdout":
          stdout += event.value.data;
          return false;
        case "stderr":
          stderr += event.value.data;
          return false;
        case "start":
          return false;
        case "exit":
        case "rejected":
        case "permissionDenied":
        case "backgrounded":
          return true;
        default: {
          const exhaustive: never = event;
          return Boolean(exhaustive);
        }
      }
    },
  );
  if (outcome.kind === "failure") return execFailure("shell", outcome);
  const display = shown(call);
  const setResult = (result: ReturnType<typeof create<typeof ShellResultSchema>>) => {
    if (display?.tool.case === "shellToolCall") display.tool.value.result = result;
  };
  const base = { command: args.command, workingDirectory };
  const finished = (exitCode: number, aborted: boolean): ToolRunOutcome => {
    const shownStreams = {
      stdout: capText(normalizeLf(stdout), displayStreamCap),
      stderr: capText(normalizeLf(stderr), displayStreamCap),
    };
    setResult(
      create(ShellResultSchema, {
        result:
          exitCode === 0 && !aborted
            ? {
                case: "success",
                value: create(ShellSuccessSchema, { ...base, exitCode, ...shownStreams }),
              }
            : {
                case: "failure",
                value: create(ShellFailureSchema, { ...base, exitCode, aborted, ...shownStreams }),
              },
      }),
    );
    return { output: shellText({ exitCode, stdout, stderr, aborted }), isError: aborted, display };
  };
  const result = outcome.result;
  if (result.case === "shellResult") {
    // A client that answers with one complete result instead of a stream.
    const shell = result.value.result;
    setResult(result.value);
    switch (shell.case) {
      case "success":
      case "failure":
        stdout = shell.value.stdout;
        stderr = shell.value.stderr;
        return {
          output: shellText({ exitCode: shell.value.exitCode, stdout, stderr, aborted: false }),
          isError: false,
          display,
        };
      case "rejected":
        return {
          output: `The user rejected the command${reasonSuffix(shell.value.reason)}`,
          isError: true,
          display,
        };
      case "permissionDenied":
        return {
          output: `Permission denied running the command${reasonSuffix(shell.value.error)}`,
          isError: true,
          display,
        };
      case undefined:
        return failed("The editor answered the command without a result.");
      default: {
        const exhaustive: never = shell;
        return failed(String(exhaustive));
      }
    }
  }
  if (result.case !== "shellStream") return failed("shell: unexpected result.");
  const event = result.value.event;
  switch (event.case) {
    case "exit":
      return finished(event.value.code, event.value.aborted);
    case "rejected":
      return failed(`The user rejected the command${reasonSuffix(event.value.reason)}`);
    case "permissionDenied":
      return failed(`Permission denied running the command${reasonSuffix(event.value.error)}`);
    case "backgrounded": {
      setResult(
        create(ShellResultSchema, {
          isBackground: true,
          result: {
            case: "success",
            value: create(ShellSuccessSchema, { ...base, shellId: event.value.shellId }),
          },
        }),
      );
      return {
        output: `The command runs in the background (shell ${event.value.shellId}); its completion arrives later as a background task notice.`,
        isError: false,
        display,
      };
    }
    default:
      return failed("The editor ended the command stream without an exit.");
  }
}

// ------------------------------------------------------------------------------------------ lints

function severityName(severity: number): string {
  return ["unspecified", "error", "warning", "information", "hint"][severity] ?? "unspecified";
}

function renderDiagnostic(diagnostic: Diagnostic): string {
  const start = diagnostic.range?.start;
  const where = start === undefined ? "" : `${start.line}:${start.column} `;
  const tag = [diagnostic.source, diagnostic.code].filter((part) => part !== "").join(" ");
  return `  ${where}${severityName(diagnostic.severity)}: ${normalizeLf(diagnostic.message)}${tag === "" ? "" : ` [${tag}]`}`;
}

async function runLints(
  call: RunnableCall,
  args: ToolArgs<"read_lints">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const paths = args.paths !== undefined && args.paths.length > 0 ? args.paths : [""];
  // One diagnostics exec per path, all at once (they only read).
  const outcomes = await Promise.all(
    paths.map((path) =>
      context.channel.exec({
        case: "diagnosticsArgs",
        value: create(DiagnosticsArgsSchema, { path, toolCallId: call.callId }),
      }),
    ),
  );
  const sections: string[] = [];
  const files: ReturnType<typeof create<typeof FileDiagnosticsSchema>>[] = [];
  let total = 0;
  let anyError = false;
  paths.forEach((path, index) => {
    const outcome = outcomes[index]!;
    const label = path === "" ? "the workspace" : path;
    if (outcome.kind === "failure") {
      anyError = true;
      sections.push(`${label}: diagnostics did not complete: ${outcome.reason}.`);
      return;
    }
    if (outcome.result.case !== "diagnosticsResult") {
      anyError = true;
      sections.push(`${label}: unexpected result.`);
      return;
    }
    const result = outcome.result.value.result;
    switch (result.case) {
      case "success": {
        const diagnostics = result.value.diagnostics;
        total += diagnostics.length;
        files.push(
          create(FileDiagnosticsSchema, {
            path: result.value.path === "" ? path : result.value.path,
            diagnostics,
            diagnosticsCount: diagnostics.length,
          }),
        );
        sections.push(
          diagnostics.length === 0
            ? `${label}: no diagnostics.`
            : [
                `${label}: ${diagnostics.length} diagnostic${diagnostics.length === 1 ? "" : "s"}`,
                ...diagnostics.map(renderDiagnostic),
              ].join("\n"),
        );
        return;
      }
      case "fileNotFound":
        anyError = true;
        sections.push(`${label}: file not found.`);
        return;
      case "permissionDenied":
        anyError = true;
        sections.push(`${label}: permission denied.`);
        return;
      case "rejected":
        anyError = true;
        sections.push(
          `${label}: the user rejected reading diagnostics${reasonSuffix(result.value.reason)}`,
        );
        return;
      case "error":
        anyError = true;
        sections.push(`${label}: could not read diagnostics${reasonSuffix(result.value.error)}`);
        return;
      case undefined:
        anyError = true;
        sections.push(`${label}: the editor answered without a result.`);
        return;
      default: {
        const exhaustive: never = result;
        sections.push(String(exhaustive));
      }
    }
  });
  const display = shown(call);
  if (display?.tool.case === "readLintsToolCall") {
    display.tool.value.result = create(ReadLintsToolResultSchema, {
      result: {
        case: "success",
        value: create(ReadLintsToolSuccessSchema, {
          fileDiagnostics: files,
          totalFiles: files.length,
          totalDiagnostics: total,
        }),
      },
    });
  }
  return {
    output: capText(sections.join("\n"), toolTextCaps.lints),
    isError: anyError && files.length === 0,
    display,
  };
}

// ------------------------------------------------------------------------------------------ MCP

function mcpTarget(
  name: string,
  context: ToolRunContext,
): { server: string; tool: string } | undefined {
  const known = context.mcpTools.get(name);
  if (known !== undefined) return known;
  // Not in this request's context (a resumed round): the exposed name without a digest suffix.
  const rest = name.slice("mcp__".length);
  const split = rest.indexOf("__");
  if (split <= 0 || split + 2 >= rest.length) return undefined;
  return { server: rest.slice(0, split), tool: rest.slice(split + 2) };
}

async function runMcp(call: RunnableCall, context: ToolRunContext): Promise<ToolRunOutcome> {
  const target = mcpTarget(call.name, context);
  if (target === undefined) return failed(`Unknown MCP tool ${call.name}.`);
  const parsed = parseMcpArgs(call.arguments);
  if (parsed === undefined) return failed(`Invalid arguments for ${call.name}: not a JSON object.`);
  const values: Record<string, Value> = {};
  for (const key of Object.keys(parsed).sort(byCodeUnit)) {
    values[key] = fromJson(ValueSchema, parsed[key] as JsonValue);
  }
  const outcome = await context.channel.exec({
    case: "mcpArgs",
    value: create(McpArgsSchema, {
      name: `${target.server}-${target.tool}`,
      args: values,
      toolCallId: call.callId,
      providerIdentifier: target.server,
      toolName: target.tool,
    }),
  });
  if (outcome.kind === "failure") return execFailure(call.name, outcome);
  if (outcome.result.case !== "mcpResult") return failed(`${call.name}: unexpected result.`);
  const result = outcome.result.value.result;
  const display = shown(call);
  const setDisplay = (value: ReturnType<typeof create<typeof McpToolResultSchema>>) => {
    if (display?.tool.case === "mcpToolCall") display.tool.value.result = value;
  };
  const label = `MCP tool ${target.server}/${target.tool}`;
  const error = (output: string): ToolRunOutcome => {
    setDisplay(
      create(McpToolResultSchema, {
        result: { case: "error", value: create(McpToolErrorSchema, { error: output }) },
      }),
    );
    return { output, isError: true, display };
  };
  switch (result.case) {
    case "success": {
      setDisplay(create(McpToolResultSchema, { result: { case: "success", value: result.value } }));
      const { kept, note } = capItems(result.value.content, toolItemCaps.mcpItems, "content items");
      const parts = kept.map((item) => {
        switch (item.content.case) {
          case "text":
            return normalizeLf(item.content.value.text);
          case "image":
            return `[image ${item.content.value.mimeType || "of unknown type"}, ${item.content.value.data.length} bytes]`;
          case undefined:
            return "[empty content item]";
          default: {
            const exhaustive: never = item.content;
            return String(exhaustive);
          }
        }
      });
      if (note !== undefined) parts.push(note);
      const text = parts.length === 0 ? `${label} returned nothing.` : parts.join("\n\n");
      return { output: capText(text, toolTextCaps.mcp), isError: result.value.isError, display };
    }
    case "error":
      return error(`${label} failed${reasonSuffix(result.value.error)}`);
    case "rejected":
      return error(`The user rejected the call to ${label}${reasonSuffix(result.value.reason)}`);
    case "permissionDenied":
      return error(`Permission denied calling ${label}${reasonSuffix(result.value.error)}`);
    case "toolNotFound":
      return error(`${label} was not found by the editor.`);
    case "serverNotFound":
      return error(`MCP server ${target.server} was not found by the editor.`);
    case undefined:
      return failed(`The editor answered ${label} without a result.`);
    default: {
      const exhaustive: never = result;
      return failed(String(exhaustive));
    }
  }
}

// ------------------------------------------------------------------------------------------ todos

const todoStatus = {
  pending: TodoStatus.PENDING,
  in_progress: TodoStatus.IN_PROGRESS,
  completed: TodoStatus.COMPLETED,
  cancelled: TodoStatus.CANCELLED,
} as const;

function runTodoWrite(
  call: RunnableCall,
  args: ToolArgs<"todo_write">,
  context: ToolRunContext,
): ToolRunOutcome {
  const applied = applyTodoWrite(context.todos.get(), args);
  if (!applied.ok) return failed(`todo_write: ${applied.error}`);
  context.todos.set(applied.todos);
  const display = create(ToolCallSchema, {
    toolCallId: call.callId,
    tool: {
      case: "updateTodosToolCall",
      value: create(UpdateTodosToolCallSchema, {
        args: create(UpdateTodosArgsSchema, {
          merge: args.merge,
          todos: args.todos.map((todo) =>
            create(TodoItemSchema, {
              id: todo.id,
              content: todo.content ?? "",
              status: todoStatus[todo.status],
            }),
          ),
        }),
        result: create(UpdateTodosResultSchema, {
          result: {
            case: "success",
            value: create(UpdateTodosSuccessSchema, {
              todos: applied.todos,
              totalCount: applied.todos.length,
              wasMerge: args.merge,
            }),
          },
        }),
      }),
    },
  });
  return { output: renderTodos(applied.todos), isError: false, display };
}

// ------------------------------------------------------------------------------------------ questions, plans

function askArgs(args: ToolArgs<"ask_question">) {
  return create(AskQuestionArgsSchema, {
    title: args.title ?? "",
    questions: args.questions.map((question) =>
      create(AskQuestionArgs_QuestionSchema, {
        id: question.id,
        prompt: question.prompt,
        options: question.options.map((option) => create(AskQuestionArgs_OptionSchema, option)),
        allowMultiple: question.allow_multiple === true,
      }),
    ),
  });
}

async function runAskQuestion(
  call: RunnableCall,
  args: ToolArgs<"ask_question">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const questionArgs = askArgs(args);
  const outcome = await context.channel.query(
    {
      case: "askQuestionInteractionQuery",
      value: create(AskQuestionInteractionQuerySchema, {
        args: questionArgs,
        toolCallId: call.callId,
      }),
    },
    "askQuestionInteractionResponse",
  );
  if (outcome.kind === "failure") return execFailure("ask_question", outcome);
  if (outcome.response.case !== "askQuestionInteractionResponse")
    return failed("ask_question: unexpected answer.");
  const answer = outcome.response.value.result;
  const display = create(ToolCallSchema, {
    toolCallId: call.callId,
    tool: {
      case: "askQuestionToolCall",
      value: create(AskQuestionToolCallSchema, {
        args: questionArgs,
        ...(answer === undefined ? {} : { result: answer }),
      }),
    },
  });
  const result = answer?.result;
  switch (result?.case) {
    case "success": {
      const lines = args.questions.map((question) => {
        const given = result.value.answers.find((entry) => entry.questionId === question.id);
        if (given === undefined) return `${question.id}: (no answer)`;
        const labels = given.selectedOptionIds.map(
          (id) => question.options.find((option) => option.id === id)?.label ?? id,
        );
        const freeform = normalizeLf(given.freeformText).trim();
        const parts = [
          ...(labels.length === 0 ? [] : [labels.join(", ")]),
          ...(freeform === "" ? [] : [`"${freeform}"`]),
        ];
        return `${question.id}: ${parts.length === 0 ? "(no answer)" : parts.join("; ")}`;
      });
      return {
        output: capText(`The user answered:\n${lines.join("\n")}`, toolTextCaps.question),
        isError: false,
        display,
      };
    }
    case "rejected":
      return {
        output: `The user declined to answer${reasonSuffix(result.value.reason)}`,
        isError: true,
        display,
      };
    case "error":
      return {
        output: `The question could not be asked${reasonSuffix(result.value.errorMessage)}`,
        isError: true,
        display,
      };
    case undefined:
      return {
        output: "The editor answered the question without a result.",
        isError: true,
        display,
      };
    default: {
      const exhaustive: never = result;
      return failed(String(exhaustive));
    }
  }
}

async function runCreatePlan(
  call: RunnableCall,
  args: ToolArgs<"create_plan">,
  context: ToolRunContext,
): Promise<ToolRunOutcome> {
  const planArgs = create(CreatePlanArgsSchema, {
    name: args.name,
    overview: args.overview,
    plan: args.plan,
    todos: (args.todos ?? []).map((todo) =>
      create(TodoItemSchema, { id: todo.id, content: todo.content, status: TodoStatus.PENDING }),
    ),
  });
  const outcome = await context.channel.query(
    {
      case: "createPlanRequestQuery",
      value: create(CreatePlanRequestQuerySchema, { args: planArgs, toolCallId: call.callId }),
    },
    "createPlanRequestResponse",
  );
  if (outcome.kind === "failure") return execFailure("create_plan", outcome);
  if (outcome.response.case !== "createPlanRequestResponse")
    return failed("create_plan: unexpected answer.");
  const answer = outcome.response.value.result;
  const display = create(ToolCallSchema, {
    toolCallId: call.callId,
    tool: {
      case: "createPlanToolCall",
      value: create(CreatePlanToolCallSchema, {
        args: planArgs,
        ...(answer === undefined ? {} : { result: answer }),
      }),
    },
  });
  const result = answer?.result;
  switch (result?.case) {
    case "success":
      return { output: "The user accepted the plan.", isError: false, display };
    case "error":
      return {
        output: `The user did not accept the plan${reasonSuffix(result.value.error)}`,
        isError: true,
        display,
      };
    case undefined:
      return { output: "The editor answered the plan without a result.", isError: true, display };
    default: {
      const exhaustive: never = result;
      return failed(String(exhaustive));
    }
  }
}
