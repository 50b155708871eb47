import type { z } from "zod";
import type { ValidationIssue } from "./errors.js";
import { RequestValidationError } from "./errors.js";

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `["action", "message", "selectedContext", 2, "path"]` → `action.message.selectedContext[2].path`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  let formatted = "";
  for (const segment of path) {
    if (typeof segment === "number") formatted += `[${segment}]`;
    else {
      const key = String(segment);
      if (identifier.test(key)) formatted += formatted === "" ? key : `.${key}`;
      else formatted += `[${JSON.stringify(key)}]`;
    }
  }
  return formatted;
}

function issueMessage(issue: z.core.$ZodIssue): string {
  // Parsed with reportInput, so an undefined input means the field is missing.
  const missing = issue.input === undefined;
  switch (issue.code) {
    case "invalid_type":
      return missing ? "is required" : `must be ${article(issue.expected)}`;
    case "invalid_union":
      if (missing) return "is required";
      // A discriminated union whose tag matched no option (an unknown action type or kind).
      if ("options" in issue && issue.options !== undefined && issue.errors.length === 0) {
        return `must be one of ${issue.options.map((option) => JSON.stringify(option)).join(", ")}`;
      }
      return issue.message;
    case "invalid_value":
      if (missing) return "is required";
      return `must be ${issue.values.length === 1 ? "" : "one of "}${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/**
 * Every offending path of a zod error, once, with a readable message. An object with unknown
 * fields gives one issue per field, so each path names exactly what to remove.
 */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  // The first problem of a path is the one to fix (an empty id is also "not printable"); later
  // ones for the same path add noise, not information.
  const add = (path: string, message: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    issues.push({ path, message });
  };
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        add(formatIssuePath([...issue.path, key]), "is not a known field");
    } else {
      add(formatIssuePath(issue.path), issueMessage(issue));
    }
  }
  return issues;
}

/** Parses `input` or throws a `RequestValidationError` naming `what` and every offending path. */
export function parseOrThrow<Schema extends z.ZodType>({
  schema,
  input,
  what,
}: {
  schema: Schema;
  input: unknown;
  what: string;
}): z.output<Schema> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  throw new RequestValidationError({
    message: `invalid ${what}: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ")}`,
    issues,
    cause: result.error,
  });
}
