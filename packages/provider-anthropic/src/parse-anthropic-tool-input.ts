import type { JsonObject, Warning } from "@cursor/run";

/**
 * The `input` object of a replayed `tool_use` block, parsed from the exact argument text the
 * model produced. `JSON.parse` keeps the text's key order (except integer-like keys, which every
 * JavaScript object lists first), so equal text always gives equal bytes on the wire and the
 * prefix stays byte-stable turn over turn. The API needs an object: text that is not a JSON
 * object (invalid, truncated, an array) becomes `{}` with a warning — the same fallback every
 * turn, so the prefix holds even then.
 */
export function parseAnthropicToolInput({
  argumentsText,
  path,
}: {
  argumentsText: string;
  path: string;
}): { input: JsonObject; warning?: Warning } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    return {
      input: {},
      warning: {
        type: "other",
        message: "tool call arguments are not valid JSON; replayed as {}",
        path,
      },
    };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return {
      input: {},
      warning: {
        type: "other",
        message: "tool call arguments are not a JSON object; replayed as {}",
        path,
      },
    };
  }
  return { input: parsed as JsonObject };
}
