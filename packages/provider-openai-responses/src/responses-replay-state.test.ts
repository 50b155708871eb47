import { describe, expect, it } from "vitest";
import { createResponsesReplayState, readResponsesReplayState } from "./responses-replay-state.js";

const items = [
  {
    type: "reasoning" as const,
    id: "rs_1",
    summary: [{ type: "summary_text" as const, text: "a" }],
    encrypted_content: "enc_1",
  },
];

describe("responses replay state", () => {
  it("round-trips the reasoning items", () => {
    const state = createResponsesReplayState(items);
    expect(state).toEqual({ reasoningItems: items });
    expect(readResponsesReplayState(state)).toEqual({ ok: true, items });
  });

  it("drops unknown fields and restores the key order", () => {
    const read = readResponsesReplayState({
      reasoningItems: [
        { summary: [], status: "completed", encrypted_content: "e", id: "rs_9", type: "reasoning" },
      ],
    });
    expect(JSON.stringify(read)).toBe(
      '{"ok":true,"items":[{"type":"reasoning","id":"rs_9","summary":[],"encrypted_content":"e"}]}',
    );
  });

  it("rejects items without encrypted content and foreign shapes", () => {
    expect(
      readResponsesReplayState({ reasoningItems: [{ type: "reasoning", id: "rs", summary: [] }] })
        .ok,
    ).toBe(false);
    expect(readResponsesReplayState("signature").ok).toBe(false);
  });
});
