import { z } from "zod";
import type { CompiledRuntime } from "./compiled-runtime.js";
import { textRuntime } from "./compiled-runtime.js";
import { cursorPrompts } from "./cursor-prompts.js";
import { requestLimits } from "./limits.js";
import { nonBlankText } from "./schema-primitives.js";
import { parseOrThrow } from "./validation-issues.js";

const injectedContextInputSchema = z.strictObject({
  text: nonBlankText(requestLimits.maxTextBytes),
});

/** The runtime message for context the editor injects mid-task (`injected-context.md`). */
export function compileInjectedContextRuntime(input: { text: string }): CompiledRuntime {
  const { text } = parseOrThrow({
    schema: injectedContextInputSchema,
    input,
    what: "injected context",
  });
  return textRuntime(cursorPrompts.injectedContext.render({ TEXT: text.trimEnd() }));
}
