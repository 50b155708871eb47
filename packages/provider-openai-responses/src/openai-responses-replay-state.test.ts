import { describe, expect, it } from "vitest";
import {
  createOpenAIResponsesReplayState,
  readOpenAIResponsesReplayState,
} from "./openai-responses-replay-state.js";

const items = [
  {
    type: "reasoning" as const,
    id: "rs_1",
    summary: [{ type: "summary_text" as const, text: "a" }],
    encrypted_content: "enc_1",
  },
];

describe("responses replay state", () => {
  it("round-trips the output items (reasoning, messages with phase, call positions)", () => {
    const all = [
      ...items,
      { type: "message" as const, text: "Looking.", phase: "commentary" as const },
      { type: "function_call" as const, call_id: "call_1" },
      { type: "message" as const, text: "No phase." },
    ];
    const state = createOpenAIResponsesReplayState(all);
    expect(state).toEqual({ items: all });
    expect(readOpenAIResponsesReplayState(state)).toEqual({ ok: true, items: all, legacy: false });
  });

  it("still reads the earlier format (reasoning items only) as legacy", () => {
    expect(readOpenAIResponsesReplayState({ reasoningItems: items })).toEqual({
      ok: true,
      items,
      legacy: true,
    });
  });

  it("drops unknown fields and restores the key order", () => {
    const read = readOpenAIResponsesReplayState({
      items: [
        { summary: [], status: "completed", encrypted_content: "e", id: "rs_9", type: "reasoning" },
        { phase: "final_answer", text: "t", type: "message", id: "msg_1" },
      ],
    });
    expect(JSON.stringify(read)).toBe(
      '{"ok":true,"items":[{"type":"reasoning","id":"rs_9","summary":[],"encrypted_content":"e"},{"type":"message","text":"t","phase":"final_answer"}],"legacy":false}',
    );
  });

  it("rejects items without encrypted content and foreign shapes", () => {
    expect(
      readOpenAIResponsesReplayState({
        reasoningItems: [{ type: "reasoning", id: "rs", summary: [] }],
      }).ok,
    ).toBe(false);
    expect(readOpenAIResponsesReplayState("signature").ok).toBe(false);
    expect(
      readOpenAIResponsesReplayState({ items: [{ type: "message", text: "t", phase: "other" }] })
        .ok,
    ).toBe(false);
  });
});
