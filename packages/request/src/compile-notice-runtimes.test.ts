import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compileBackgroundCompletionRuntime } from "./compile-background-completion-runtime.js";
import { compileInjectedContextRuntime } from "./compile-injected-context-runtime.js";
import { cursorPromptSources } from "./prompt-assets.js";
import { RequestValidationError } from "./errors.js";
import { renderSummaryText, summarizerInstructions } from "./summary-texts.js";

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const backgroundNotice =
  "A background task you started earlier has finished. This is a notice from the editor, not a new request from the user. Take its outcome into account and continue the work in hand; do not start the task again unless its outcome calls for it.";

describe("compileBackgroundCompletionRuntime", () => {
  it("renders a finished task with its detail and tool call", () => {
    const runtime = compileBackgroundCompletionRuntime({
      taskId: "t-7",
      kind: "shell",
      status: "error",
      title: "pnpm test --watch",
      detail: "FAIL src/a.test.ts\n  expected 1 to be 2\n",
      toolCallId: "call_42",
    });
    const text = [
      "<background_task_completion>",
      '<task kind="shell" task_id="t-7" status="error" tool_call_id="call_42">',
      "pnpm test --watch",
      "</task>",
      "<detail>",
      "FAIL src/a.test.ts",
      "  expected 1 to be 2",
      "</detail>",
      backgroundNotice,
      "</background_task_completion>",
    ].join("\n");
    expect(runtime).toEqual({
      content: [{ type: "text", text }],
      contentDigest: sha256(JSON.stringify([{ text, type: "text" }])),
    });
  });

  it("leaves out the detail and the tool call when there are none", () => {
    const runtime = compileBackgroundCompletionRuntime({
      taskId: "sub-1",
      kind: "subagent",
      status: "aborted",
      title: 'review "auth" <module>',
    });
    expect(runtime.content).toEqual([
      {
        type: "text",
        text: [
          "<background_task_completion>",
          '<task kind="subagent" task_id="sub-1" status="aborted">',
          'review "auth" <module>',
          "</task>",
          backgroundNotice,
          "</background_task_completion>",
        ].join("\n"),
      },
    ]);
  });

  it("gives different completions different digests", () => {
    const base = { taskId: "t", kind: "shell", status: "success", title: "x" } as const;
    const digests = [
      base,
      { ...base, status: "error" as const },
      { ...base, taskId: "u" },
      { ...base, toolCallId: "c" },
      { ...base, detail: "d" },
    ].map((completion) => compileBackgroundCompletionRuntime(completion).contentDigest);
    expect(new Set(digests).size).toBe(digests.length);
  });

  it("rejects an invalid completion", () => {
    expect(() =>
      compileBackgroundCompletionRuntime({
        taskId: "a.b",
        kind: "cron" as "shell",
        status: "success",
        title: "x",
      }),
    ).toThrow(RequestValidationError);
  });
});

describe("compileInjectedContextRuntime", () => {
  it("wraps the injected text and says it is not a new request", () => {
    const runtime = compileInjectedContextRuntime({ text: "The user saved src/a.ts.\n" });
    const text =
      "<injected_context>\nThe user saved src/a.ts.\n</injected_context>\nThe editor added the context above while you were working. It is not a new request from the user: take it into account and continue the work in hand.";
    expect(runtime).toEqual({
      content: [{ type: "text", text }],
      contentDigest: sha256(JSON.stringify([{ text, type: "text" }])),
    });
  });

  it("rejects blank text", () => {
    expect(() => compileInjectedContextRuntime({ text: " \n" })).toThrow(
      "invalid injected context: text: must not be empty or only whitespace",
    );
  });
});

describe("summary texts", () => {
  it("wraps the summary in the compaction text", () => {
    expect(renderSummaryText("\n## Goal\nFix the parser.\n\n")).toBe(
      [
        "<conversation_summary>",
        "The earlier part of this conversation was compacted to save space. This summary replaces it:",
        "",
        "## Goal",
        "Fix the parser.",
        "</conversation_summary>",
        "Continue the conversation from here. The request context before this summary still applies; the messages after it are new.",
      ].join("\n"),
    );
  });

  it("gives the summariser instruction exactly as written in summarizer.md", () => {
    expect(summarizerInstructions).toBe(cursorPromptSources.summarizer.source.replace(/\n$/, ""));
    expect(summarizerInstructions).toContain("Do not call any tools.");
  });
});
