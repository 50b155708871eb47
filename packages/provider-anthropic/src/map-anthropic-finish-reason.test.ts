import { describe, expect, it } from "vitest";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.js";

describe("mapAnthropicFinishReason", () => {
  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["tool_use", "tool-calls"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "refusal"],
    ["pause_turn", "other"],
    ["something_new", "other"],
    [null, "other"],
    [undefined, "other"],
  ] as const)("%s → %s", (stopReason, expected) => {
    expect(mapAnthropicFinishReason(stopReason)).toBe(expected);
  });
});
