import { readFileSync } from "node:fs";
import type { z } from "zod";

export type JsonConfigFileResult<T> =
  | {
      readonly success: true;
      readonly data: T;
      /** `VARIABLE (path)`: how every further message about this file starts. */
      readonly where: string;
    }
  | { readonly success: false; readonly issues: readonly string[] };

/**
 * Reads the JSON file an environment variable names and checks it against `schema`. Every issue
 * starts with `VARIABLE (path)`: a file that cannot be read gives its errno code (`ENOENT` when
 * missing), text that is not JSON gives only the parser's position, and each schema issue gives
 * its path in the file (`models[0].id`, `(file)` for the top level). No message quotes the
 * file's text, which may sit beside secrets.
 */
export function readJsonConfigFile<S extends z.ZodType>({
  path,
  variable,
  schema,
}: {
  path: string;
  /** The environment variable that names the file (`CURSOR_GATEWAY_MODELS_FILE`). */
  variable: string;
  schema: S;
}): JsonConfigFileResult<z.output<S>> {
  const where = `${variable} (${path})`;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return { success: false, issues: [`${where}: cannot read the file (${code})`] };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // Only the position: the engine's message may quote the file's text.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    return {
      success: false,
      issues: [
        `${where}: not valid JSON${position === undefined ? "" : ` (at position ${position})`}`,
      ],
    };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return {
      success: false,
      issues: parsed.error.issues.map(
        (issue) => `${where}: ${issuePath(issue.path)}: ${issue.message}`,
      ),
    };
  }
  return { success: true, data: parsed.data, where };
}

function issuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(file)";
  return path
    .map((key, index) =>
      typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`,
    )
    .join("");
}
