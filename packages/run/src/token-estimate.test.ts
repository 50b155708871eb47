import { describe, expect, it } from "vitest";
import { historyWithOneTurn, promptSpec, turn } from "./__fixtures__/loop-fixtures.js";
import type { CanonicalMessage } from "./canonical-message.js";
import {
  countMessageTokens,
  countTextTokens,
  imageTokenEstimate,
  messageOverheadTokens,
} from "./token-count.js";
import { contextBudget, estimateRequestTokens, tokenAnchorFor } from "./token-estimate.js";
import { toModelRequest } from "./to-model-request.js";

const project = (messages: readonly CanonicalMessage[]) =>
  toModelRequest({ conversationId: "c", model: "m", promptSpec, messages });

/** A counter that records what it was asked to count. */
function countingCounter() {
  const seen: string[] = [];
  const count = (text: string) => {
    seen.push(text);
    return text.length;
  };
  return { seen, count };
}

describe("contextBudget", () => {
  it("is the window minus the larger of the reserve and the output limit, never negative", () => {
    expect(contextBudget({ contextWindowTokens: 200_000 })).toBe(180_000);
    expect(contextBudget({ contextWindowTokens: 200_000, reserveTokens: 5_000 })).toBe(195_000);
    expect(contextBudget({ contextWindowTokens: 200_000, maxOutputTokens: 64_000 })).toBe(136_000);
    expect(contextBudget({ contextWindowTokens: 1_000 })).toBe(0);
  });
});

describe("countTextTokens (o200k)", () => {
  it("counts with the o200k encoding and stays linear on long unbroken runs", () => {
    expect(countTextTokens("")).toBe(0);
    expect(countTextTokens("hello world")).toBe(2);
    const started = performance.now();
    expect(countTextTokens("x".repeat(100_000))).toBe(12_500);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("counts messages by part, with framing and a flat image estimate", () => {
    const { count } = countingCounter();
    const [user] = project([
      {
        kind: "user",
        id: "user:1",
        role: "user",
        origin: "user",
        content: [
          { type: "text", text: "abc" },
          { type: "image", mimeType: "image/png", data: "AA==" },
        ],
      },
    ]).messages;
    expect(countMessageTokens(user!, count)).toBe(messageOverheadTokens + 3 + imageTokenEstimate);
  });
});

describe("estimateRequestTokens", () => {
  it("counts everything once without an anchor and memoises per message", () => {
    const history = historyWithOneTurn();
    history.append(turn("follow-up"));
    const { seen, count } = countingCounter();
    const request = project(history.messages);
    const full = estimateRequestTokens({ request, epoch: 0, countTokens: count });
    const specTokens =
      promptSpec.instructions.length +
      promptSpec.tools.reduce(
        (sum, t) => sum + `${t.name}\n${t.description}\n${JSON.stringify(t.inputSchema)}`.length,
        0,
      );
    const messageTokens = request.messages.reduce(
      (sum, m) => sum + countMessageTokens(m, count),
      0,
    );
    expect(full).toBe(specTokens + messageTokens);
    const calls = seen.length;
    history.append(turn("next", "0123456789"));
    const next = project(history.messages);
    expect(estimateRequestTokens({ request: next, epoch: 0, countTokens: count })).toBe(
      full + messageOverheadTokens + 10,
    );
    // Only the new message was tokenised.
    expect(seen.slice(calls)).toEqual(["0123456789"]);
  });

  it("starts from a same-epoch anchor and counts only what follows it", () => {
    const history = historyWithOneTurn();
    const anchor = tokenAnchorFor({
      request: project(history.messages),
      epoch: 0,
      inputTokens: 5_000,
    });
    expect(anchor).toEqual({ epoch: 0, messageCount: 3, inputTokens: 5_000 });
    history.append(turn("next", "0123456789"));
    const { seen, count } = countingCounter();
    const request = project(history.messages);
    expect(estimateRequestTokens({ request, epoch: 0, anchor, countTokens: count })).toBe(
      5_000 + messageOverheadTokens + 10,
    );
    expect(seen).toEqual(["0123456789"]);
    const stale = estimateRequestTokens({
      request,
      epoch: 1,
      anchor,
      countTokens: count,
    });
    expect(stale).not.toBe(5_000 + messageOverheadTokens + 10);
  });

  it("leaves the transient tail out of an anchor", () => {
    const request = project(historyWithOneTurn().messages);
    expect(request.messages.at(-1)?.id).toBe("tail");
    // historyWithOneTurn ends with the assistant: 3 messages + tail.
    expect(tokenAnchorFor({ request, epoch: 2, inputTokens: 1 }).messageCount).toBe(3);
  });
});
