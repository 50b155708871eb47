import { backgroundCompletionInputSchema } from "./agent-action-schema.js";
import type { BackgroundCompletionInput } from "./agent-action-schema.js";
import type { CompiledRuntime } from "./compiled-runtime.js";
import { textRuntime, withoutFinalNewline } from "./compiled-runtime.js";
import { cursorPrompts } from "./cursor-prompts.js";
import { renderAttributes } from "./escape-xml-attribute.js";
import { parseOrThrow } from "./validation-issues.js";

/** The runtime message announcing one finished background task (`background-completion.md`). */
export function compileBackgroundCompletionRuntime(
  completion: BackgroundCompletionInput,
): CompiledRuntime {
  const parsed = parseOrThrow({
    schema: backgroundCompletionInputSchema,
    input: completion,
    what: "background completion",
  });
  const attributes = renderAttributes([
    ["kind", parsed.kind],
    ["task_id", parsed.taskId],
    ["status", parsed.status],
    ["tool_call_id", parsed.toolCallId],
  ]).trimStart();
  const detail =
    parsed.detail === undefined || parsed.detail.trim() === ""
      ? ""
      : `<detail>\n${withoutFinalNewline(parsed.detail)}\n</detail>`;
  return textRuntime(
    cursorPrompts.backgroundCompletion.render({
      TASK_ATTRIBUTES: attributes,
      TITLE: parsed.title,
      DETAIL: detail,
    }),
  );
}
