import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { TodoItem } from "../gen/agent_v1_pb.js";
import { TodoItemSchema, TodoStatus } from "../gen/agent_v1_pb.js";
import type { ToolArgs } from "./tool-args.js";

const statusByName = {
  pending: TodoStatus.PENDING,
  in_progress: TodoStatus.IN_PROGRESS,
  completed: TodoStatus.COMPLETED,
  cancelled: TodoStatus.CANCELLED,
} as const;

function todoStatusName(status: TodoStatus): string {
  switch (status) {
    case TodoStatus.PENDING:
      return "pending";
    case TodoStatus.IN_PROGRESS:
      return "in_progress";
    case TodoStatus.COMPLETED:
      return "completed";
    case TodoStatus.CANCELLED:
      return "cancelled";
    case TodoStatus.UNSPECIFIED:
      return "pending";
    default: {
      const exhaustive: never = status;
      return String(exhaustive);
    }
  }
}

/** The state's `todos` entries (one encoded TodoItem each); undecodable entries are skipped. */
export function decodeTodos(entries: readonly Uint8Array[]): TodoItem[] {
  const todos: TodoItem[] = [];
  for (const entry of entries) {
    try {
      todos.push(fromBinary(TodoItemSchema, entry));
    } catch {
      // A foreign or corrupt entry: the gateway's list is what it can read.
    }
  }
  return todos;
}

export function encodeTodos(todos: readonly TodoItem[]): Uint8Array[] {
  return todos.map((todo) => toBinary(TodoItemSchema, todo));
}

/**
 * `todo_write`: with merge, items are matched by id (content kept when omitted) and new ones
 * appended in the model's order; without, the list is replaced. Returns the error text for an
 * item that would have no content.
 */
export function applyTodoWrite(
  current: readonly TodoItem[],
  args: ToolArgs<"todo_write">,
): { ok: true; todos: TodoItem[] } | { ok: false; error: string } {
  const next: TodoItem[] = args.merge ? current.map((todo) => create(TodoItemSchema, todo)) : [];
  for (const item of args.todos) {
    const existing = next.find((todo) => todo.id === item.id);
    if (existing !== undefined) {
      if (item.content !== undefined) existing.content = item.content;
      existing.status = statusByName[item.status];
      continue;
    }
    if (item.content === undefined || item.content === "") {
      return { ok: false, error: `todo ${item.id} is new and has no content.` };
    }
    next.push(
      create(TodoItemSchema, {
        id: item.id,
        content: item.content,
        status: statusByName[item.status],
      }),
    );
  }
  return { ok: true, todos: next };
}

/** The list as the model reads it back. */
export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "The todo list is empty.";
  return `Todo list (${todos.length} items):\n${todos
    .map((todo) => `- [${todoStatusName(todo.status)}] ${todo.id}: ${todo.content}`)
    .join("\n")}`;
}
