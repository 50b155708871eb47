// The loop's budget check must decide exactly as comparing the full estimate would, while
// tokenising nothing for the common call that is far below the budget.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { historyWithOneTurn, promptSpec, turn } from "./__fixtures__/loop-fixtures.js";
import type { CanonicalMessage } from "./canonical-message.js";
import { createAssistantMessage, createUserMessage } from "./message-builders.js";
import { countTextTokens, o200kTokenUpperBound } from "./token-count.js";
import { checkTokenBudget, estimateRequestTokens, tokenAnchorFor } from "./token-estimate.js";
import { toModelRequest } from "./to-model-request.js";

const project = (messages: readonly CanonicalMessage[]) =>
  toModelRequest({ conversationId: "c", model: "m", promptSpec, messages });

function countingCounter() {
  const seen: string[] = [];
  const count = (text: string) => {
    seen.push(text);
    return text.length;
  };
  return { seen, count };
}

/** Any UTF-16 code units, lone surrogates included, plus astral characters. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit)),
    fc.constantFrom("😀", "你", "é", " ", "<|endoftext|>"),
  ),
  maxLength: 300,
});

describe("o200kTokenUpperBound", () => {
  it("is never below the o200k count of any text, also across chunk boundaries", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(countTextTokens(text)).toBeLessThanOrEqual(o200kTokenUpperBound(text));
        // A surrogate pair cut by the 2 000-unit chunk boundary.
        const cut = `${"a".repeat(1_999)}😀${text}`;
        expect(countTextTokens(cut)).toBeLessThanOrEqual(o200kTokenUpperBound(cut));
      }),
      { numRuns: 300, seed: 29 },
    );
  });
});

describe("checkTokenBudget", () => {
  it("settles a request far below the budget from the bound, tokenising nothing", () => {
    const history = historyWithOneTurn();
    const anchor = tokenAnchorFor({
      request: project(history.messages),
      epoch: 0,
      inputTokens: 5_000,
    });
    history.append(turn("next", "0123456789"));
    const { seen, count } = countingCounter();
    const check = checkTokenBudget({
      request: project(history.messages),
      epoch: 0,
      anchor,
      budgetTokens: 100_000,
      countTokens: count,
      tokenUpperBound: (text) => 2 * text.length,
    });
    expect(check).toEqual({ fits: true });
    expect(seen).toEqual([]);
  });

  it("counts when the bound cannot clear the budget, and decides by the estimate", () => {
    const history = historyWithOneTurn();
    const anchor = tokenAnchorFor({
      request: project(history.messages),
      epoch: 0,
      inputTokens: 5_000,
    });
    history.append(turn("next", "0123456789"));
    const request = project(history.messages);
    const exact = 5_000 + 4 + 10;
    const bound = (text: string) => 2 * text.length;
    // Above the exact estimate but below the bound: counted, and it fits.
    const counted = countingCounter();
    expect(
      checkTokenBudget({
        request,
        epoch: 0,
        anchor,
        budgetTokens: exact + 5,
        countTokens: counted.count,
        tokenUpperBound: bound,
      }),
    ).toEqual({ fits: true });
    expect(counted.seen).toEqual(["0123456789"]);
    // Below the exact estimate: does not fit, with the estimate the error message quotes.
    expect(
      checkTokenBudget({
        request,
        epoch: 0,
        anchor,
        budgetTokens: exact - 1,
        countTokens: countingCounter().count,
        tokenUpperBound: bound,
      }),
    ).toEqual({ fits: false, estimate: exact });
  });

  it("counts with a custom counter that has no bound", () => {
    const history = historyWithOneTurn();
    history.append(turn("next", "0123456789"));
    const { seen, count } = countingCounter();
    const request = project(history.messages);
    expect(
      checkTokenBudget({ request, epoch: 0, budgetTokens: 1_000_000, countTokens: count }),
    ).toEqual({ fits: true });
    expect(seen).toContain("0123456789");
  });

  it("decides exactly as the o200k estimate compared with the budget (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anyText, anyText), { minLength: 1, maxLength: 6 }),
        fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 12_000 }),
        (exchanges, anchorTokens, budgetTokens) => {
          const messages: CanonicalMessage[] = exchanges.flatMap(([asked, answered], index) => [
            createUserMessage({ id: `user:${index}`, content: [{ type: "text", text: asked }] }),
            createAssistantMessage({ runId: `run-${index}`, step: 0, text: answered }),
          ]);
          const request = project(messages);
          const anchor =
            anchorTokens === undefined
              ? undefined
              : { epoch: 0, messageCount: 1, inputTokens: anchorTokens };
          const estimate = estimateRequestTokens({ request, epoch: 0, anchor });
          const check = checkTokenBudget({ request, epoch: 0, anchor, budgetTokens });
          expect(check).toEqual(
            estimate > budgetTokens ? { fits: false, estimate } : { fits: true },
          );
        },
      ),
      { numRuns: 200, seed: 31 },
    );
  });
});
