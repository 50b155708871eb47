import { describe, expect, it } from "vitest";
import { headWithTurns } from "../__fixtures__/heads.js";
import { snapshotHead } from "./head-snapshot.js";
import { pendingToolCallsJson, settledToolResults } from "./pending-tool-calls-json.js";

describe("pending_tool_calls entries", () => {
  const head = headWithTurns({ conversationId: "pending", turns: 1, pendingToolCall: true });
  const snapshot = snapshotHead(head, head.history.pendingToolCalls());

  it("carry the open round's settled results, read back keyed by assistant and call id", () => {
    const [plain] = pendingToolCallsJson(snapshot);
    expect(plain).not.toContain("cursorGateway");
    const settled = new Map([["call-0", { output: "     1\tx", isError: false }]]);
    const entries = pendingToolCallsJson(snapshot, settled);
    // Canonical JSON: the same round and results always give the same bytes.
    expect(pendingToolCallsJson(snapshot, settled)).toEqual(entries);
    const assistantId = snapshot.pendingToolCalls[0]!.assistantId;
    expect([...settledToolResults(entries)]).toEqual([
      [`${assistantId}\u0000call-0`, { output: "     1\tx", isError: false }],
    ]);
  });

  it("ignore entries that are not the gateway's or are malformed", () => {
    expect(
      settledToolResults([
        "not json",
        '{"id":"x","providerOptions":{"cursorGateway":{"settled":[{"toolCallId":1}]}}}',
        '{"id":"1","role":"assistant","content":[]}',
      ]).size,
    ).toBe(0);
  });
});
