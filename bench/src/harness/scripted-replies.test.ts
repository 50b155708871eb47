import { summarizerInstructions } from "@cursor/request";
import type { RecordedRequest } from "@cursor/testkit";
import { describe, expect, it } from "vitest";
import { ScriptedReplies, automaticSummaryText, isSummarizerBody } from "./scripted-replies.js";

const recorded = (body: unknown) => ({ body }) as RecordedRequest;

describe("ScriptedReplies", () => {
  it("recognises the summariser call in every wire format", () => {
    expect(isSummarizerBody({ instructions: summarizerInstructions, input: [] })).toBe(true);
    expect(isSummarizerBody({ system: [{ type: "text", text: summarizerInstructions }] })).toBe(
      true,
    );
    expect(
      isSummarizerBody({ messages: [{ role: "developer", content: summarizerInstructions }] }),
    ).toBe(true);
    expect(isSummarizerBody({ instructions: "You are a coding agent.", input: [] })).toBe(false);
    expect(isSummarizerBody(null)).toBe(false);
  });

  it("answers scripted replies in order and summaries out of band", () => {
    const replies = new ScriptedReplies();
    replies.push([
      { type: "text", text: "one" },
      { type: "text", text: "two" },
    ]);
    expect(replies.next(recorded({ input: [] }))).toEqual({ type: "text", text: "one" });
    expect(replies.next(recorded({ instructions: summarizerInstructions }))).toEqual({
      type: "text",
      text: automaticSummaryText,
    });
    expect(replies.pending).toBe(1);
    expect(replies.next(recorded({ input: [] }))).toEqual({ type: "text", text: "two" });
  });
});
