import { create, fromJson } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import type { Value } from "@bufbuild/protobuf/wkt";
import type { ToolCall } from "../gen/agent_v1_pb.js";
import {
  DeleteArgsSchema,
  DeleteErrorSchema,
  DeleteResultSchema,
  DeleteToolCallSchema,
  EditArgsSchema,
  EditErrorSchema,
  EditResultSchema,
  EditToolCallSchema,
  GlobToolArgsSchema,
  GlobToolCallSchema,
  GlobToolErrorSchema,
  GlobToolResultSchema,
  GrepArgsSchema,
  GrepErrorSchema,
  GrepResultSchema,
  GrepToolCallSchema,
  LsArgsSchema,
  LsErrorSchema,
  LsResultSchema,
  LsToolCallSchema,
  McpArgsSchema,
  McpToolCallSchema,
  McpToolErrorSchema,
  McpToolResultSchema,
  AskQuestionArgsSchema,
  AskQuestionArgs_OptionSchema,
  AskQuestionArgs_QuestionSchema,
  AskQuestionErrorSchema,
  AskQuestionResultSchema,
  AskQuestionToolCallSchema,
  CreatePlanArgsSchema,
  CreatePlanErrorSchema,
  CreatePlanResultSchema,
  CreatePlanToolCallSchema,
  ReadLintsToolArgsSchema,
  ReadLintsToolCallSchema,
  ReadLintsToolErrorSchema,
  ReadLintsToolResultSchema,
  TodoItemSchema,
  TodoStatus,
  UpdateTodosArgsSchema,
  UpdateTodosErrorSchema,
  UpdateTodosResultSchema,
  UpdateTodosToolCallSchema,
  ReadToolArgsSchema,
  ReadToolCallSchema,
  ReadToolErrorSchema,
  ReadToolResultSchema,
  ShellArgsSchema,
  ShellFailureSchema,
  ShellResultSchema,
  ShellToolCallSchema,
  ToolCallSchema,
} from "../gen/agent_v1_pb.js";

/** A model tool call as the IDE shows it: its `ToolCall` variant, with a result once it has one. */
export interface ToolCallDisplayInput {
  readonly callId: string;
  readonly name: string;
  /** The JSON text the model produced. */
  readonly arguments: string;
  /** Present once the call has a result; the display shows failures only for now. */
  readonly result?: { readonly output: string; readonly isError: boolean } | undefined;
}

type Args = Readonly<Record<string, unknown>>;

function parseArgs(text: string): Args {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Args)
      : {};
  } catch {
    return {};
  }
}

const str = (args: Args, key: string): string =>
  typeof args[key] === "string" ? (args[key] as string) : "";
const optStr = (args: Args, key: string): string | undefined =>
  typeof args[key] === "string" ? (args[key] as string) : undefined;
const optInt = (args: Args, key: string): number | undefined =>
  typeof args[key] === "number" && Number.isInteger(args[key]) ? (args[key] as number) : undefined;

function errorText(input: ToolCallDisplayInput): string | undefined {
  return input.result?.isError === true ? input.result.output : undefined;
}

/**
 * The `ToolCall` variant (facts §5.4, §5.5) of a call to a catalog tool or an MCP tool, or
 * `undefined` for a tool the IDE has no variant for (the call is then shown as text only).
 * Only failures are rendered here; the tool bridge fills in the success cases from the IDE's own
 * exec results (`ToolRoundResult.display`).
 */
export function toolCallDisplay(input: ToolCallDisplayInput): ToolCall | undefined {
  const args = parseArgs(input.arguments);
  const error = errorText(input);
  const tool = variant(input, args, error);
  if (tool === undefined) return undefined;
  return create(ToolCallSchema, { toolCallId: input.callId, tool });
}

function variant(
  input: ToolCallDisplayInput,
  args: Args,
  error: string | undefined,
): ToolCall["tool"] | undefined {
  const path = str(args, "path");
  switch (input.name) {
    case "read_file":
      return {
        case: "readToolCall",
        value: create(ReadToolCallSchema, {
          args: create(ReadToolArgsSchema, {
            path,
            ...(optInt(args, "offset") === undefined ? {} : { offset: optInt(args, "offset") }),
            ...(optInt(args, "limit") === undefined ? {} : { limit: optInt(args, "limit") }),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(ReadToolResultSchema, {
                  result: {
                    case: "error",
                    value: create(ReadToolErrorSchema, { errorMessage: error }),
                  },
                }),
              }),
        }),
      };
    case "list_directory":
      return {
        case: "lsToolCall",
        value: create(LsToolCallSchema, {
          args: create(LsArgsSchema, {
            path,
            ignore: Array.isArray(args.ignore)
              ? args.ignore.filter((item): item is string => typeof item === "string")
              : [],
            toolCallId: input.callId,
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(LsResultSchema, {
                  result: { case: "error", value: create(LsErrorSchema, { path, error }) },
                }),
              }),
        }),
      };
    case "glob":
      return {
        case: "globToolCall",
        value: create(GlobToolCallSchema, {
          args: create(GlobToolArgsSchema, {
            globPattern: str(args, "pattern"),
            ...(optStr(args, "directory") === undefined
              ? {}
              : { targetDirectory: optStr(args, "directory") }),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(GlobToolResultSchema, {
                  result: { case: "error", value: create(GlobToolErrorSchema, { error }) },
                }),
              }),
        }),
      };
    case "grep":
      return {
        case: "grepToolCall",
        value: create(GrepToolCallSchema, {
          args: create(GrepArgsSchema, {
            pattern: str(args, "pattern"),
            ...(optStr(args, "path") === undefined ? {} : { path: optStr(args, "path") }),
            ...(optStr(args, "glob") === undefined ? {} : { glob: optStr(args, "glob") }),
            toolCallId: input.callId,
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(GrepResultSchema, {
                  result: { case: "error", value: create(GrepErrorSchema, { error }) },
                }),
              }),
        }),
      };
    case "write_file":
    case "edit_file":
      return {
        case: "editToolCall",
        value: create(EditToolCallSchema, {
          args: create(EditArgsSchema, {
            path,
            ...(input.name === "write_file" ? { streamContent: str(args, "contents") } : {}),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(EditResultSchema, {
                  result: {
                    case: "error",
                    value: create(EditErrorSchema, { path, error, modelVisibleError: error }),
                  },
                }),
              }),
        }),
      };
    case "delete_file":
      return {
        case: "deleteToolCall",
        value: create(DeleteToolCallSchema, {
          args: create(DeleteArgsSchema, { path, toolCallId: input.callId }),
          ...(error === undefined
            ? {}
            : {
                result: create(DeleteResultSchema, {
                  result: { case: "error", value: create(DeleteErrorSchema, { path, error }) },
                }),
              }),
        }),
      };
    case "shell":
      return {
        case: "shellToolCall",
        value: create(ShellToolCallSchema, {
          args: create(ShellArgsSchema, {
            command: str(args, "command"),
            workingDirectory: str(args, "working_directory"),
            toolCallId: input.callId,
          }),
          ...(optStr(args, "description") === undefined
            ? {}
            : { description: optStr(args, "description") }),
          ...(error === undefined
            ? {}
            : {
                result: create(ShellResultSchema, {
                  result: {
                    case: "failure",
                    value: create(ShellFailureSchema, {
                      command: str(args, "command"),
                      workingDirectory: str(args, "working_directory"),
                      exitCode: -1,
                      stderr: error,
                    }),
                  },
                }),
              }),
        }),
      };
    case "read_lints":
      return {
        case: "readLintsToolCall",
        value: create(ReadLintsToolCallSchema, {
          args: create(ReadLintsToolArgsSchema, { paths: strings(args.paths) }),
          ...(error === undefined
            ? {}
            : {
                result: create(ReadLintsToolResultSchema, {
                  result: {
                    case: "error",
                    value: create(ReadLintsToolErrorSchema, { errorMessage: error }),
                  },
                }),
              }),
        }),
      };
    case "todo_write":
      return {
        case: "updateTodosToolCall",
        value: create(UpdateTodosToolCallSchema, {
          args: create(UpdateTodosArgsSchema, {
            merge: args.merge === true,
            todos: objects(args.todos).map((todo) =>
              create(TodoItemSchema, {
                id: str(todo, "id"),
                content: str(todo, "content"),
                status: todoStatuses[str(todo, "status")] ?? TodoStatus.UNSPECIFIED,
              }),
            ),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(UpdateTodosResultSchema, {
                  result: { case: "error", value: create(UpdateTodosErrorSchema, { error }) },
                }),
              }),
        }),
      };
    case "ask_question":
      return {
        case: "askQuestionToolCall",
        value: create(AskQuestionToolCallSchema, {
          args: create(AskQuestionArgsSchema, {
            title: str(args, "title"),
            questions: objects(args.questions).map((question) =>
              create(AskQuestionArgs_QuestionSchema, {
                id: str(question, "id"),
                prompt: str(question, "prompt"),
                options: objects(question.options).map((option) =>
                  create(AskQuestionArgs_OptionSchema, {
                    id: str(option, "id"),
                    label: str(option, "label"),
                  }),
                ),
                allowMultiple: question.allow_multiple === true,
              }),
            ),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(AskQuestionResultSchema, {
                  result: {
                    case: "error",
                    value: create(AskQuestionErrorSchema, { errorMessage: error }),
                  },
                }),
              }),
        }),
      };
    case "create_plan":
      return {
        case: "createPlanToolCall",
        value: create(CreatePlanToolCallSchema, {
          args: create(CreatePlanArgsSchema, {
            name: str(args, "name"),
            overview: str(args, "overview"),
            plan: str(args, "plan"),
            todos: objects(args.todos).map((todo) =>
              create(TodoItemSchema, {
                id: str(todo, "id"),
                content: str(todo, "content"),
                status: TodoStatus.PENDING,
              }),
            ),
          }),
          ...(error === undefined
            ? {}
            : {
                result: create(CreatePlanResultSchema, {
                  result: { case: "error", value: create(CreatePlanErrorSchema, { error }) },
                }),
              }),
        }),
      };
    default:
      return input.name.startsWith("mcp__") ? mcpVariant(input, args, error) : undefined;
  }
}

const todoStatuses: Readonly<Record<string, TodoStatus>> = Object.freeze({
  pending: TodoStatus.PENDING,
  in_progress: TodoStatus.IN_PROGRESS,
  completed: TodoStatus.COMPLETED,
  cancelled: TodoStatus.CANCELLED,
});

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}

function objects(value: unknown): Args[] {
  return Array.isArray(value)
    ? value.filter(
        (item): item is Args => typeof item === "object" && item !== null && !Array.isArray(item),
      )
    : [];
}

function mcpVariant(
  input: ToolCallDisplayInput,
  args: Args,
  error: string | undefined,
): ToolCall["tool"] {
  const values: Record<string, Value> = {};
  for (const key of Object.keys(args).sort()) {
    values[key] = fromJson(ValueSchema, args[key] as JsonValue);
  }
  return {
    case: "mcpToolCall",
    value: create(McpToolCallSchema, {
      args: create(McpArgsSchema, { name: input.name, args: values, toolCallId: input.callId }),
      ...(error === undefined
        ? {}
        : {
            result: create(McpToolResultSchema, {
              result: { case: "error", value: create(McpToolErrorSchema, { error }) },
            }),
          }),
    }),
  };
}
