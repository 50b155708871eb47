import { z } from "zod";
import { cursorPrompts } from "./cursor-prompts.js";
import { parseOrThrow } from "./validation-issues.js";

/** The text of the summary message that replaces compacted history (`summary.md`). */
export function renderSummaryText(summary: string): string {
  const text = parseOrThrow({ schema: z.string(), input: summary, what: "summary" });
  return cursorPrompts.summary.render({
    SUMMARY: text.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd(),
  });
}

/** The instruction that asks the model for a summary when history is compacted (`summarizer.md`). */
export const summarizerInstructions: string = cursorPrompts.summarizer.render({});
