import { createRuntimeMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { storedConversation } from "./conversation-rows.js";
import type { ConversationRow } from "./conversation-rows.js";

const message = createRuntimeMessage({
  eventId: "turn.m1.0",
  runtimeKind: "user-turn",
  content: [{ type: "text", text: "q1" }],
});

const row: ConversationRow = {
  epoch: 2,
  message_count: 1,
  head_digest: "sha256:head",
  last_run_id: "run-7",
  input_tokens: 120,
  cached_input_tokens: 100,
  cache_write_tokens: 20,
  output_tokens: 9,
  last_input_tokens: 120,
  last_input_message_count: 1,
  prompt_spec_input: '{"model":"m","rules":["a"]}',
};

describe("storedConversation", () => {
  it("maps every column of a full row", () => {
    expect(
      storedConversation({
        tenant: "t",
        conversationId: "c",
        row,
        messages: [message],
        turns: [{ eventId: "e1" }],
      }),
    ).toStrictEqual({
      tenant: "t",
      conversationId: "c",
      epoch: 2,
      messages: [message],
      headDigest: "sha256:head",
      turns: [{ eventId: "e1" }],
      lastRunId: "run-7",
      usage: { inputTokens: 120, cachedInputTokens: 100, cacheWriteTokens: 20, outputTokens: 9 },
      lastInput: { inputTokens: 120, messageCount: 1 },
      promptSpecInput: { model: "m", rules: ["a"] },
    });
  });

  it("leaves out the optional fields whose columns are NULL", () => {
    const stored = storedConversation({
      tenant: "t",
      conversationId: "c",
      row: {
        ...row,
        last_run_id: null,
        last_input_tokens: null,
        last_input_message_count: null,
        prompt_spec_input: null,
      },
      messages: [],
      turns: [],
    });
    expect(Object.keys(stored)).toStrictEqual([
      "tenant",
      "conversationId",
      "epoch",
      "messages",
      "headDigest",
      "turns",
      "usage",
    ]);
  });

  it("has no lastInput when only one of its two columns is set", () => {
    for (const half of [
      { last_input_tokens: null },
      { last_input_message_count: null },
    ] satisfies Partial<ConversationRow>[]) {
      const stored = storedConversation({
        tenant: "t",
        conversationId: "c",
        row: { ...row, ...half },
        messages: [],
        turns: [],
      });
      expect(stored).not.toHaveProperty("lastInput");
    }
  });
});
