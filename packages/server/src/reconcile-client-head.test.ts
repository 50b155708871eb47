import { createConversationHead } from "@cursor/projection";
import type { TurnRecord } from "@cursor/projection";
import {
  HistoryLog,
  createAssistantMessage,
  createRuntimeMessage,
  createSummaryMessage,
} from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { coversStoredHead, reconcileHeads } from "./reconcile-client-head.js";

const runtime = (n: number, text = `q${n}`) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text }],
  });
const answer = (n: number) => createAssistantMessage({ runId: `r${n}`, step: 0, text: `a${n}` });
const record = (n: number): TurnRecord => ({
  clientMessageId: `m${n}`,
  eventId: `turn.m${n}.0`,
  runId: `r${n}`,
  messageIds: [runtime(n).id],
});

function head(
  turns: number[],
  { epoch = 0, messages }: { epoch?: number; messages?: CanonicalMessage[] } = {},
) {
  return createConversationHead({
    conversationId: "c",
    history: new HistoryLog({
      epoch,
      messages: messages ?? turns.flatMap((n) => [runtime(n), answer(n)]),
    }),
    turns: turns.map(record),
  });
}

describe("reconcileHeads", () => {
  it("tells the same head, a store ahead, a client ahead, within an epoch", () => {
    expect(reconcileHeads({ stored: head([1, 2]), client: head([1, 2]) })).toEqual({
      kind: "same",
    });
    expect(reconcileHeads({ stored: head([1, 2]), client: head([1]) })).toEqual({
      kind: "store-ahead",
    });
    expect(reconcileHeads({ stored: head([1]), client: head([1, 2]) })).toEqual({
      kind: "client-ahead",
      write: "append",
    });
  });

  it("finds where two histories of one epoch part", () => {
    const other = head([1, 2], {
      messages: [runtime(1), answer(1), runtime(2, "something else"), answer(2)],
    });
    const result = reconcileHeads({ stored: head([1, 2, 3]), client: other });
    expect(result).toMatchObject({
      kind: "diverged",
      reason: expect.stringMatching(/from message 2 of epoch 0/),
    });
  });

  it("across epochs, the later head must extend the earlier's accepted events", () => {
    const compacted = head([1, 2, 3], {
      epoch: 1,
      messages: [
        createSummaryMessage({ summarizedEpoch: 0, text: "summary" }),
        runtime(3),
        answer(3),
      ],
    });
    expect(reconcileHeads({ stored: head([1, 2]), client: compacted })).toEqual({
      kind: "client-ahead",
      write: "epoch",
    });
    expect(reconcileHeads({ stored: compacted, client: head([1, 2]) })).toEqual({
      kind: "store-ahead",
    });
    expect(reconcileHeads({ stored: head([1, 4]), client: compacted })).toMatchObject({
      kind: "diverged",
      reason: expect.stringMatching(/accepted events differ from event 1/),
    });
  });

  it("coversStoredHead: a client head holds the stored head when its first messages chain to it", () => {
    const stored = head([1]).history;
    const version = { epoch: 0, headDigest: stored.headDigest, messageCount: stored.length };
    expect(coversStoredHead(head([1]), version)).toBe(true);
    expect(coversStoredHead(head([1, 2]), version)).toBe(true);
    expect(coversStoredHead(head([2]), version)).toBe(false);
    expect(coversStoredHead(head([1], { epoch: 1 }), version)).toBe(false);
  });
});
