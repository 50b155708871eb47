import { HistoryLog } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { recomputeHeadDigest, verifyConversation } from "./verify-conversation.js";
import type {
  CallRecordEvidence,
  ConversationEvidence,
  ConversationExpectation,
  ConversationSummary,
} from "./verify-conversation.js";

const conversationId = "load-001";

/** The messages one load turn stores, in the gateway's shape. */
function turnMessages(turn: number): Record<string, unknown>[] {
  const callId = `call_${turn}`;
  const runId = `${conversationId}-run-${turn}`;
  return [
    ...(turn === 1
      ? [
          {
            kind: "request-context",
            id: "request-context:ctx.m-1.0123456789abcdef",
            role: "user",
            origin: "prompt",
            eventId: "ctx.m-1.0123456789abcdef",
            digest: "a".repeat(64),
            text: "<rules>Prefer small functions.</rules>",
          },
        ]
      : []),
    {
      kind: "runtime",
      id: `runtime:turn.m-${turn}.0123456789abcdef`,
      role: "user",
      origin: "runtime",
      eventId: `turn.m-${turn}.0123456789abcdef`,
      runtimeKind: "user-turn",
      content: [{ type: "text", text: `Read src/load/${conversationId}/turn-${turn}.ts` }],
    },
    {
      kind: "assistant",
      id: `assistant:${runId}:0`,
      role: "assistant",
      origin: "assistant",
      text: "",
      reasoning: "I read the file.",
      toolCalls: [{ index: 0, callId, name: "read_file", arguments: `{"path":"t${turn}.ts"}` }],
      replay: {},
    },
    {
      kind: "tool-result",
      id: `tool-result:${callId}`,
      role: "tool",
      origin: "tool",
      callId,
      name: "read_file",
      content: `export const value${turn} = ${turn};`,
      isError: false,
    },
    {
      kind: "assistant",
      id: `assistant:${runId}:1`,
      role: "assistant",
      origin: "assistant",
      text: `It exports value${turn}.`,
      reasoning: "",
      toolCalls: [],
      replay: {},
    },
  ];
}

/** A conversation after `turns` load turns, read back as the gateway stores it: all checks pass. */
function healthyConversation(turns: number): {
  evidence: ConversationEvidence;
  expected: ConversationExpectation;
} {
  const messages = Array.from({ length: turns }, (_, index) => turnMessages(index + 1)).flat();
  // The head digest as the gateway's history log chains it, not as the check recomputes it.
  const log = new HistoryLog({ messages });
  const runIds = Array.from({ length: turns }, (_, index) => `${conversationId}-run-${index + 1}`);
  const calls: CallRecordEvidence[] = runIds.flatMap((runId, index) => [
    { callId: `u-${index}-0`, runId, kind: "model", attempt: 1, outcome: "ok" },
    { callId: `u-${index}-1`, runId, kind: "model", attempt: 1, outcome: "ok" },
  ]);
  return {
    evidence: {
      conversationId,
      summary: {
        conversationId,
        epoch: 0,
        messages: log.length,
        headDigest: log.headDigest,
      },
      history: JSON.parse(JSON.stringify(log.messages)) as unknown[],
      calls,
      runs: runIds.map((runId) => ({ runId, status: "completed" })),
      providerCalls: turns * 2,
    },
    expected: { turns, runIds },
  };
}

describe("verifyConversation", () => {
  it("passes a conversation that loads, verifies and holds everything once", () => {
    const { evidence, expected } = healthyConversation(3);
    expect(evidence.history).toHaveLength(13);
    expect(verifyConversation({ evidence, expected })).toEqual([]);
  });

  it("recomputes the head digest exactly as the history log chains it (epoch included)", () => {
    const { evidence } = healthyConversation(2);
    const summary = evidence.summary as ConversationSummary;
    const history = evidence.history as unknown[];
    expect(recomputeHeadDigest({ epoch: 0, history })).toBe(summary.headDigest);
    expect(recomputeHeadDigest({ epoch: 1, history })).not.toBe(summary.headDigest);
    expect(recomputeHeadDigest({ epoch: 0, history: history.slice(0, -1) })).not.toBe(
      summary.headDigest,
    );
  });

  it("fails a history whose content changed after its digest was taken", () => {
    const { evidence, expected } = healthyConversation(2);
    const history = (evidence.history as Record<string, unknown>[]).map((message) =>
      message.kind === "tool-result" ? { ...message, content: "tampered" } : message,
    );
    expect(verifyConversation({ evidence: { ...evidence, history }, expected })).toEqual([
      expect.stringMatching(
        /^load-001: head digest [0-9a-f]{12}… does not verify: the history chains to [0-9a-f]{12}…$/,
      ),
    ]);
  });

  it("fails a turn stored twice even when the stored digest chains over the copy", () => {
    const { evidence, expected } = healthyConversation(2);
    const history = evidence.history as unknown[];
    // A store that appended the second turn's messages twice and chained the head over them.
    const doubled = [...history, ...history.slice(-4)];
    const summary = {
      ...(evidence.summary as ConversationSummary),
      messages: doubled.length,
      headDigest: recomputeHeadDigest({ epoch: 0, history: doubled }),
    };
    const problems = verifyConversation({
      evidence: { ...evidence, summary, history: doubled },
      expected,
    });
    expect(problems).toEqual([
      "load-001: message ids stored twice: runtime:turn.m-2.0123456789abcdef, assistant:load-001-run-2:0, tool-result:call_2 and 1 more",
      "load-001: 3 user turns in the history, expected 2",
      "load-001: user turns stored twice: turn.m-2.0123456789abcdef",
      "load-001: 3 tool calls, expected 2",
      "load-001: 3 tool results, expected 2",
      "load-001: 3 answers, expected 2",
      "load-001: tool calls stored twice: call_2",
      "load-001: tool results stored twice: call_2",
    ]);
  });

  it("fails a request context stored again on an unchanged turn, and a count that disagrees", () => {
    const { evidence, expected } = healthyConversation(2);
    const history = evidence.history as Record<string, unknown>[];
    const again = { ...history[0]!, id: "request-context:ctx.m-2.0123456789abcdef" };
    const withContext = [...history.slice(0, 5), again, ...history.slice(5)];
    const summary = {
      ...(evidence.summary as ConversationSummary),
      headDigest: recomputeHeadDigest({ epoch: 0, history: withContext }),
    };
    expect(
      verifyConversation({ evidence: { ...evidence, summary, history: withContext }, expected }),
    ).toEqual([
      "load-001: the summary counts 9 messages, the history has 10",
      "load-001: 2 request-context messages, expected 1",
    ]);
  });

  it("fails a tool result without its call and a call left without a result", () => {
    const { evidence, expected } = healthyConversation(2);
    const history = (evidence.history as Record<string, unknown>[]).map((message) =>
      message.id === "tool-result:call_2" ? { ...message, callId: "call_9" } : message,
    );
    const summary = {
      ...(evidence.summary as ConversationSummary),
      headDigest: recomputeHeadDigest({ epoch: 0, history }),
    };
    expect(verifyConversation({ evidence: { ...evidence, summary, history }, expected })).toEqual([
      "load-001: tool results without their call: call_9",
      "load-001: tool calls without a result: call_2",
    ]);
  });

  it("fails usage records stored twice, retried, missing, or of calls the provider never got", () => {
    const { evidence, expected } = healthyConversation(2);
    const calls = evidence.calls as CallRecordEvidence[];
    expect(
      verifyConversation({ evidence: { ...evidence, calls: [...calls, calls[1]!] }, expected }),
    ).toEqual([
      "load-001: 5 usage records for 4 provider calls",
      "load-001: usage records stored twice: u-0-1",
      "load-001: runs without exactly 2 usage records: load-001-run-1 (3)",
    ]);
    expect(
      verifyConversation({
        evidence: { ...evidence, calls: [...calls.slice(0, 3), { ...calls[3]!, attempt: 2 }] },
        expected,
      }),
    ).toEqual([
      "load-001: usage records of failed, retried or extra calls: u-1-1 (model, attempt 2, ok)",
    ]);
    expect(
      verifyConversation({ evidence: { ...evidence, calls: calls.slice(0, 3) }, expected }),
    ).toEqual([
      "load-001: 3 usage records for 4 provider calls",
      "load-001: runs without exactly 2 usage records: load-001-run-2 (1)",
    ]);
    // The provider got a call more than the client's turns caused (a hidden retry).
    expect(verifyConversation({ evidence: { ...evidence, providerCalls: 5 }, expected })).toEqual([
      "load-001: the fake provider received 5 calls, the client caused 4",
      "load-001: 4 usage records for 5 provider calls",
    ]);
  });

  it("fails run records stored twice, missing, unknown or not completed", () => {
    const { evidence, expected } = healthyConversation(2);
    const runs = [
      { runId: "load-001-run-1", status: "completed" },
      { runId: "load-001-run-1", status: "completed" },
      { runId: "load-001-run-3", status: "completed" },
    ];
    expect(verifyConversation({ evidence: { ...evidence, runs }, expected })).toEqual([
      "load-001: run records stored twice: load-001-run-1",
      "load-001: runs without a run record: load-001-run-2",
      "load-001: run records of unknown runs: load-001-run-3",
    ]);
    expect(
      verifyConversation({
        evidence: {
          ...evidence,
          runs: [
            { runId: "load-001-run-1", status: "completed" },
            { runId: "load-001-run-2", status: "awaiting-tools" },
          ],
        },
        expected,
      }),
    ).toEqual(["load-001: runs not completed: load-001-run-2 (awaiting-tools)"]);
  });

  it("fails a conversation that does not load, and says which read failed", () => {
    const { evidence, expected } = healthyConversation(1);
    expect(
      verifyConversation({
        evidence: { ...evidence, summary: "answered 404", history: "answered 404" },
        expected,
      }),
    ).toEqual([
      "load-001: GET /v1/conversations/{id}: answered 404",
      "load-001: GET …/history: answered 404",
    ]);
  });
});
