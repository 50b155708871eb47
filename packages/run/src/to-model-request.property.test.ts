import fc from "fast-check";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { historyScenario, playScenario } from "./__fixtures__/history-arbitrary.js";
import { promptSpec } from "./__fixtures__/loop-fixtures.js";
import type { CanonicalMessage } from "./canonical-message.js";
import type { ModelMessage } from "./model-request.js";
import { toModelRequest } from "./to-model-request.js";

// Fixed seed: the suite is deterministic; change the seed locally to explore further.
const settings = { numRuns: 100, seed: 20_261_129 };
// Small enough that generated tool results cross it both ways (and sit exactly on it).
const maxToolResultChars = 30;

function project(messages: readonly CanonicalMessage[]) {
  return toModelRequest({
    conversationId: "conv",
    model: "m",
    promptSpec,
    messages,
    maxToolResultChars,
  });
}

/**
 * A request as a provider package reads it: each message's projection fields only, in one order
 * (a projected message may be the frozen canonical message itself, which also carries `kind` and
 * `origin`; an unfrozen input is always copied into a new object).
 */
function providerView(request: ReturnType<typeof project>): string {
  const fields = (message: ModelMessage) => {
    switch (message.role) {
      case "user":
        return [message.role, message.id, message.source, message.content];
      case "assistant":
        return [
          message.role,
          message.id,
          message.text,
          message.reasoning,
          message.toolCalls,
          message.replay,
        ];
      case "tool":
        return [
          message.role,
          message.id,
          message.callId,
          message.name,
          message.content,
          message.isError,
          message.image ?? null,
        ];
    }
  };
  return JSON.stringify({ ...request, messages: request.messages.map(fields) });
}

/**
 * The part of a projection later turns must keep byte for byte: without the transient tail and
 * without the results of a still open tool round (no request is ever sent with one open; its
 * results are re-sorted by call index as they arrive).
 */
function stablePart(projected: readonly ModelMessage[]): readonly ModelMessage[] {
  let end = projected.length;
  const last = projected[end - 1];
  if (last?.role === "user" && last.source === "tail") end -= 1;
  let roundStart = end - 1;
  while (roundStart >= 0 && projected[roundStart]!.role === "tool") roundStart -= 1;
  const assistant = projected[roundStart];
  if (assistant?.role === "assistant" && assistant.toolCalls.length > end - 1 - roundStart) {
    end = roundStart + 1;
  }
  return projected.slice(0, end);
}

describe("toModelRequest properties (fast-check)", () => {
  it("projects an array that grows in place, or changes, exactly as a fresh copy of it", () => {
    fc.assert(
      fc.property(historyScenario, fc.array(fc.nat(), { maxLength: 4 }), (scenario, edits) => {
        const { snapshots } = playScenario(scenario);
        // One array appended to in place, as a HistoryLog's messages are: later projections
        // may reuse earlier work, and must equal the projection of a fresh copy every time.
        const live: CanonicalMessage[] = [];
        for (const snapshot of snapshots) {
          live.push(...snapshot.slice(live.length));
          expect(project(live)).toEqual(project([...live]));
        }
        // An array changed in place otherwise (cut, or a message replaced) is projected as it is.
        const last = snapshots.at(-1)!;
        for (const edit of edits) {
          if (live.length === 0) break;
          const at = edit % live.length;
          if (edit % 2 === 0) live.length = at;
          else live[at] = last[(at + 1) % last.length] ?? live[at]!;
          expect(project(live)).toEqual(project([...live]));
        }
      }),
      settings,
    );
  });

  it("projects every history as an exact prefix of the projection after more appends", () => {
    fc.assert(
      fc.property(historyScenario, (scenario) => {
        const { snapshots } = playScenario(scenario);
        const projections = snapshots.map((messages) => project(messages).messages);
        for (let i = 0; i < projections.length; i += 1) {
          const stable = stablePart(projections[i]!);
          for (let j = i + 1; j < projections.length; j += 1) {
            const later = projections[j]!;
            if (later.length < stable.length) return false;
            for (let k = 0; k < stable.length; k += 1) {
              if (!isDeepStrictEqual(later[k], stable[k])) return false;
            }
          }
        }
        return true;
      }),
      settings,
    );
  });

  it("adds the transient tail only last, only after an assistant message", () => {
    fc.assert(
      fc.property(historyScenario, (scenario) => {
        for (const messages of playScenario(scenario).snapshots) {
          const projected = project(messages).messages;
          const tails = projected.flatMap((m, i) =>
            m.role === "user" && m.source === "tail" ? [i] : [],
          );
          const endsWithAssistant = messages.at(-1)?.kind === "assistant";
          const expected = endsWithAssistant ? [projected.length - 1] : [];
          if (!isDeepStrictEqual(tails, expected)) return false;
          if (endsWithAssistant && projected.length - 1 !== messages.length) return false;
          if (!endsWithAssistant && projected.length !== messages.length) return false;
        }
        return true;
      }),
      settings,
    );
  });

  it("gives the same bytes for the same input and never mutates its input", () => {
    fc.assert(
      fc.property(historyScenario, (scenario) => {
        const { log, batches } = playScenario(scenario);
        // Appending neither froze nor changed what the caller passed in.
        for (const { input, before } of batches) {
          if (!isDeepStrictEqual(input, before)) return false;
          if (input.some((message) => Object.isFrozen(message))) return false;
        }
        // Fresh, unfrozen copies (nothing memoised) project to what the log projects to.
        const copies = structuredClone(log.messages) as CanonicalMessage[];
        const copyBefore = JSON.stringify(copies);
        const fromCopies = providerView(project(copies));
        if (fromCopies !== providerView(project(log.messages))) return false;
        if (fromCopies !== providerView(project(copies))) return false;
        return JSON.stringify(copies) === copyBefore && !copies.some((m) => Object.isFrozen(m));
      }),
      settings,
    );
  });

  it("truncates tool results over the limit only, in the projection only", () => {
    fc.assert(
      fc.property(historyScenario, (scenario) => {
        const { log } = playScenario(scenario);
        const projected = project(log.messages).messages;
        for (const message of projected) {
          if (message.role !== "tool") continue;
          const stored = log.get(message.id);
          if (stored?.kind !== "tool-result") return false;
          const over = stored.content.length > maxToolResultChars;
          if (!over && message.content !== stored.content) return false;
          if (
            over &&
            (message.content.length > maxToolResultChars || !/omitted/.test(message.content))
          )
            return false;
        }
        return true;
      }),
      settings,
    );
  });
});

describe("playScenario", () => {
  it("generates every message kind, open rounds and out-of-order result commits", () => {
    const kinds = new Set<string>();
    let outOfOrder = false;
    let openRound = false;
    fc.assert(
      fc.property(historyScenario, (scenario) => {
        const { snapshots, openCalls } = playScenario(scenario);
        const last = snapshots.at(-1)!;
        for (const message of last) kinds.add(message.kind);
        for (let i = 1; i < last.length; i += 1) {
          const a = last[i - 1]!;
          const b = last[i]!;
          if (a.kind === "tool-result" && b.kind === "tool-result" && a.callId > b.callId)
            outOfOrder = true;
        }
        // A round left open with some of its results already committed.
        if (snapshots.some((s, i) => openCalls[i]! > 0 && s.at(-1)?.kind === "tool-result"))
          openRound = true;
        return true;
      }),
      settings,
    );
    expect([...kinds].sort()).toEqual([
      "assistant",
      "request-context",
      "runtime",
      "summary",
      "tool-result",
      "user",
    ]);
    expect(outOfOrder).toBe(true);
    expect(openRound).toBe(true);
  });
});
