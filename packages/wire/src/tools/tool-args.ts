import { z } from "zod";

/**
 * The arguments of the catalog tools (`prompt/cursor/tools.md`), checked before anything is sent
 * to the IDE: a call the model got wrong gets an error result naming the problem, and nothing
 * runs. Unknown keys are refused, as the catalog's schemas say (`additionalProperties: false`).
 */
const path = z.string().min(1);
const positiveInt = z.number().int().min(1);

const toolArgSchemas = {
  read_file: z.strictObject({
    path,
    offset: positiveInt.optional(),
    limit: positiveInt.optional(),
  }),
  list_directory: z.strictObject({ path, ignore: z.array(z.string()).optional() }),
  glob: z.strictObject({ pattern: z.string().min(1), directory: z.string().optional() }),
  grep: z.strictObject({
    pattern: z.string().min(1),
    path: z.string().optional(),
    glob: z.string().optional(),
    type: z.string().optional(),
    output_mode: z.enum(["content", "files_with_matches", "count"]).optional(),
    case_insensitive: z.boolean().optional(),
    multiline: z.boolean().optional(),
    context_lines: z.number().int().min(0).optional(),
    head_limit: positiveInt.optional(),
  }),
  write_file: z.strictObject({ path, contents: z.string() }),
  edit_file: z.strictObject({
    path,
    old_string: z.string().min(1),
    new_string: z.string(),
    replace_all: z.boolean().optional(),
  }),
  delete_file: z.strictObject({ path }),
  shell: z.strictObject({
    command: z.string().min(1),
    description: z.string(),
    working_directory: z.string().optional(),
    background: z.boolean().optional(),
    timeout_ms: z.number().int().min(1000).max(600_000).optional(),
  }),
  read_lints: z.strictObject({ paths: z.array(z.string()).optional() }),
  todo_write: z.strictObject({
    merge: z.boolean(),
    todos: z
      .array(
        z.strictObject({
          id: z.string().min(1),
          content: z.string().optional(),
          status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
        }),
      )
      .min(1),
  }),
  ask_question: z.strictObject({
    title: z.string().optional(),
    questions: z
      .array(
        z.strictObject({
          id: z.string().min(1),
          prompt: z.string().min(1),
          options: z
            .array(z.strictObject({ id: z.string().min(1), label: z.string().min(1) }))
            .min(2),
          allow_multiple: z.boolean().optional(),
        }),
      )
      .min(1),
  }),
  create_plan: z.strictObject({
    name: z.string().min(1),
    overview: z.string().min(1),
    plan: z.string().min(1),
    todos: z
      .array(z.strictObject({ id: z.string().min(1), content: z.string().min(1) }))
      .optional(),
  }),
} as const;

export type CatalogToolName = keyof typeof toolArgSchemas;
export type ToolArgs<N extends CatalogToolName> = z.infer<(typeof toolArgSchemas)[N]>;

export function isCatalogToolName(name: string): name is CatalogToolName {
  return Object.hasOwn(toolArgSchemas, name);
}

/** The parsed arguments, or the error text the model gets (stable: issues in schema order). */
export function parseToolArgs<N extends CatalogToolName>(
  name: N,
  text: string,
): { ok: true; args: ToolArgs<N> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: `Invalid arguments for ${name}: not valid JSON.` };
  }
  const parsed = toolArgSchemas[name].safeParse(value);
  if (parsed.success) return { ok: true, args: parsed.data as ToolArgs<N> };
  const issues = parsed.error.issues
    .slice(0, 5)
    .map(
      (issue) =>
        `${issue.path.length === 0 ? "(arguments)" : issue.path.join(".")}: ${issue.message}`,
    );
  return { ok: false, error: `Invalid arguments for ${name}: ${issues.join("; ")}.` };
}

/** The JSON object of an MCP call's arguments (an empty object for `{}` or no text). */
export function parseMcpArgs(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
