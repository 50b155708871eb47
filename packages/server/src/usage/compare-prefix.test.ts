import { describe, expect, it } from "vitest";
import { promptFingerprint } from "../diagnostics/prompt-fingerprint.js";
import type { StoredProviderCall } from "../store/provider-call-store.js";
import { comparePrefix } from "./compare-prefix.js";

const user = (text: string) => ({ role: "user", content: [{ type: "input_text", text }] });
const bodyWith = (...texts: string[]) => ({
  model: "gpt-5",
  instructions: "be brief",
  input: texts.map(user),
});

/** The conversation's previous model call as the store returns it. */
function previousCall(body: unknown): StoredProviderCall {
  const fingerprint = promptFingerprint({ body, format: "openai-responses" });
  return {
    callId: "call-1",
    tenant: "t",
    conversationId: "c",
    runId: "r1",
    kind: "model",
    attempt: 1,
    epoch: 0,
    startedAt: 0,
    provider: "openai-responses",
    model: "gpt-5",
    catalogModel: "default",
    outcome: "ok",
    durationMs: 1,
    gatewayOverheadMs: 1,
    prefix: {
      status: "first",
      historyItems: fingerprint.historyItems,
      digest: fingerprint.digest,
    },
    process: { id: "p", startedAt: 0 },
    seq: 1,
    hasDivergenceView: false,
  };
}

describe("comparePrefix", () => {
  it("decides an extending prompt from the fingerprints alone, never reading the previous body", () => {
    const earlier = bodyWith("a");
    let reads = 0;
    const verdict = comparePrefix({
      callId: "call-2",
      body: bodyWith("a", "b"),
      format: "openai-responses",
      epoch: 0,
      previous: previousCall(earlier),
      previousBody: () => {
        reads += 1;
        return earlier;
      },
      redact: (text) => text,
    });
    expect(verdict.prefix).toMatchObject({ status: "extends", sharedItems: 1, historyItems: 2 });
    expect(reads).toBe(0);
  });

  it("reads the previous body to explain a broken prefix", () => {
    const earlier = bodyWith("a", "b");
    let reads = 0;
    const verdict = comparePrefix({
      callId: "call-2",
      body: bodyWith("a", "changed"),
      format: "openai-responses",
      epoch: 0,
      previous: previousCall(earlier),
      previousBody: () => {
        reads += 1;
        return earlier;
      },
      redact: (text) => text,
    });
    expect(reads).toBe(1);
    expect(verdict.prefix).toMatchObject({ status: "broke", sharedItems: 1 });
    expect(verdict.divergenceView).toContain('"previousCallId":"call-1"');
  });

  it("leaves a break unexplained when the previous body is no longer held", () => {
    const verdict = comparePrefix({
      callId: "call-2",
      body: bodyWith("x"),
      format: "openai-responses",
      epoch: 0,
      previous: previousCall(bodyWith("a")),
      previousBody: () => undefined,
      redact: (text) => text,
    });
    expect(verdict).toEqual({
      prefix: expect.objectContaining({ status: "broke", previousCallId: "call-1" }),
    });
  });
});
