import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TurnRecord } from "./conversation-head.js";
import { TurnIndex } from "./turn-index.js";

const turnArbitrary = fc.record({
  clientMessageId: fc.constant("m"),
  eventId: fc.constantFrom("e1", "e2", "e3", "e4", "e5", "e6"),
  runId: fc.constantFrom("r1", "r2", "r3"),
  messageIds: fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { maxLength: 4 }),
});

/** What the index answers, computed by scanning the turns. */
function scan(turns: readonly TurnRecord[]) {
  return {
    eventPosition: (eventId: string) => {
      const position = turns.findIndex((turn) => turn.eventId === eventId);
      return position < 0 ? undefined : position;
    },
    runPositions: (runId: string) =>
      turns.flatMap((turn, position) => (turn.runId === runId ? [position] : [])),
    messagePosition: (messageId: string) => {
      const position = turns.findIndex((turn) => turn.messageIds.includes(messageId));
      return position < 0 ? undefined : position;
    },
  };
}

describe("TurnIndex", () => {
  it("answers as a scan of the turns does (first occurrence wins), built at once or extended", () => {
    fc.assert(
      fc.property(
        fc.array(turnArbitrary, { maxLength: 60 }),
        fc.nat({ max: 60 }),
        (turns, split) => {
          const whole = new TurnIndex(turns);
          const grown = new TurnIndex(turns.slice(0, Math.min(split, turns.length)));
          grown.extend(turns);
          const expected = scan(turns);
          for (const index of [whole, grown]) {
            expect(index.length).toBe(turns.length);
            for (const eventId of ["e1", "e2", "e3", "e4", "e5", "e6", "absent"]) {
              expect(index.eventPosition(eventId)).toBe(expected.eventPosition(eventId));
            }
            for (const runId of ["r1", "r2", "r3", "absent"]) {
              expect(index.runPositions(runId)).toEqual(expected.runPositions(runId));
            }
            for (const messageId of ["a", "b", "c", "d", "e", "f", "g", "h", "absent"]) {
              expect(index.messagePosition(messageId)).toBe(expected.messagePosition(messageId));
            }
          }
        },
      ),
    );
  });

  it("keeps positions to a few bytes per turn and message id, not a Map entry each", () => {
    const turns: TurnRecord[] = [];
    for (let turn = 0; turn < 1000; turn += 1) {
      turns.push({
        clientMessageId: `client-${turn}`,
        eventId: `turn.${turn}`,
        runId: `run-${turn}`,
        messageIds: [
          `runtime:${turn}`,
          `assistant:${turn}:a`,
          `tool:${turn}`,
          `assistant:${turn}:b`,
        ],
      });
    }
    const index = new TurnIndex(turns);
    expect(index.messagePosition("tool:777")).toBe(777);
    expect(index.runPositions("run-999")).toEqual([999]);
    // 5 000 keys in all: at most 16 bytes of slots each (4 a slot, tables at most half full), plus
    // 8 bytes per turn of links and entry offsets (with spare capacity).
    expect(index.bytes).toBeLessThanOrEqual(16 * 5000 + 12 * 1000);
  });
});
