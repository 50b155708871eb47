import { HistoryConflictError } from "@cursor/run";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { catchCheckpointError } from "./__fixtures__/expect-checkpoint-error.js";
import { buildHistory, historyPlanArbitrary } from "./__fixtures__/histories.js";
import type { BuiltHistory } from "./__fixtures__/histories.js";
import { growingStates, stateOf, testSecret } from "./__fixtures__/states.js";
import { MemoryBlobStore } from "./blob-store.js";
import type { CheckpointRef } from "./checkpoint-ref.js";
import { decodeCheckpoint } from "./decode-checkpoint.js";
import { createCheckpointEncodeCache } from "./encode-cache.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { hydrateCheckpoint } from "./hydrate-checkpoint.js";
import { readCheckpoint } from "./read-checkpoint.js";
import { writeCheckpoint } from "./write-checkpoint.js";

// Fixed seeds and capped runs: deterministic, a few seconds at most.
const settings = { seed: 20261129, numRuns: 40 };
const histories = historyPlanArbitrary().map(buildHistory);
const audience = "tenant-a";
const decode = (token: string) => decodeCheckpoint({ token, secret: testSecret, audience });

function expectSameHistory(built: BuiltHistory, token: string): void {
  const { history, turns } = hydrateCheckpoint(decode(token));
  expect(history.messages).toEqual(built.history.messages);
  expect(history.headDigest).toBe(built.history.headDigest);
  expect(history.pendingToolCalls()).toEqual(built.history.pendingToolCalls());
  expect(history.latestRequestContext()).toEqual(built.history.latestRequestContext());
  expect(turns).toEqual(built.turns);
  // Dedup after hydration: every message again is a no-op; the same id with other content (a
  // marker field added) conflicts.
  const head = history.headDigest;
  expect(history.append(structuredClone(built.messages)).appended).toEqual([]);
  expect(history.headDigest).toBe(head);
  for (const message of built.messages.slice(-2)) {
    const edited = { ...message, id: message.id };
    if (
      edited.kind === "assistant" ||
      edited.kind === "summary" ||
      edited.kind === "request-context"
    ) {
      expect(() => history.append({ ...edited, text: `${edited.text}!` })).toThrow(
        HistoryConflictError,
      );
    } else if (edited.kind === "tool-result") {
      expect(() => history.append({ ...edited, isError: !edited.isError })).toThrow(
        HistoryConflictError,
      );
    } else {
      expect(() => history.append({ ...edited, content: [{ type: "text", text: "!" }] })).toThrow(
        HistoryConflictError,
      );
    }
  }
}

/** Every single-bit flip of the token's characters at the given bit positions. */
function expectFlipsRejected(token: string, positions: Iterable<number>): void {
  const bytes = Buffer.from(token, "latin1");
  for (const bit of positions) {
    const flipped = Buffer.from(bytes);
    flipped[bit >> 3]! ^= 1 << (bit & 7);
    catchCheckpointError(() => decode(flipped.toString("latin1")));
  }
}

describe("checkpoint properties", () => {
  it("round-trips random histories of every message kind exactly through encode/decode", () => {
    const cache = createCheckpointEncodeCache();
    fc.assert(
      fc.property(histories, (built) => {
        const state = stateOf(built);
        const token = encodeCheckpoint({ state, secret: testSecret, audience, cache });
        expect(decode(token)).toEqual(state);
        expect(
          encodeCheckpoint({ state: structuredClone(state), secret: testSecret, audience }),
        ).toBe(token);
        expectSameHistory(built, token);
      }),
      settings,
    );
  });

  it("round-trips random histories through the blob store, written turn by turn", async () => {
    await fc.assert(
      fc.asyncProperty(histories, async (built) => {
        const store = new MemoryBlobStore();
        let ref: CheckpointRef | undefined;
        for (const state of growingStates(built)) {
          const result = await writeCheckpoint({ store, previous: ref, state });
          expect(await readCheckpoint({ store, ref: result.ref })).toEqual(state);
          ref = result.ref;
        }
        const whole = stateOf(built);
        const { ref: wholeRef } = await writeCheckpoint({ store, previous: ref, state: whole });
        expect(await readCheckpoint({ store, ref: wholeRef })).toEqual(whole);
        const fresh = new MemoryBlobStore();
        const direct = await writeCheckpoint({ store: fresh, state: whole });
        expect(direct.ref).toEqual(wholeRef);
      }),
      { ...settings, numRuns: 25 },
    );
  });

  it("rejects every single-bit flip and every truncation of a small token", () => {
    const built = buildHistory({
      epoch: 0,
      summary: "",
      pendingAtEnd: false,
      turns: [
        {
          context: "r",
          runtimeKind: "user-turn",
          text: "q",
          image: undefined,
          userMessage: false,
          steps: [],
        },
      ],
    });
    const token = encodeCheckpoint({ state: stateOf(built), secret: testSecret, audience });
    expect(decode(token)).toEqual(stateOf(built));
    expectFlipsRejected(
      token,
      Array.from({ length: token.length * 8 }, (_, bit) => bit),
    );
    for (let length = 0; length < token.length; length += 1) {
      catchCheckpointError(() => decode(token.slice(0, length)));
    }
  });

  it("rejects sampled bit flips and truncations of random tokens", () => {
    fc.assert(
      fc.property(
        histories,
        fc.array(fc.nat(), { minLength: 32, maxLength: 32 }),
        fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        (built, flipSeeds, cutSeeds) => {
          const token = encodeCheckpoint({ state: stateOf(built), secret: testSecret, audience });
          expectFlipsRejected(
            token,
            flipSeeds.map((seed) => seed % (token.length * 8)),
          );
          for (const seed of cutSeeds) {
            catchCheckpointError(() => decode(token.slice(0, seed % token.length)));
          }
        },
      ),
      { ...settings, numRuns: 30 },
    );
  });

  it("rejects every splice of two tokens that is not one of them", () => {
    fc.assert(
      fc.property(
        histories,
        histories,
        fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 16, maxLength: 16 }),
        (builtA, builtB, cuts) => {
          const a = encodeCheckpoint({ state: stateOf(builtA), secret: testSecret, audience });
          const b = encodeCheckpoint({
            state: stateOf(builtB, "conv-2"),
            secret: testSecret,
            audience,
          });
          // Character-level splices: a prefix of one token and a suffix of the other.
          for (const [i, j] of cuts) {
            for (const spliced of [
              a.slice(0, i % (a.length + 1)) + b.slice(j % (b.length + 1)),
              b.slice(0, j % (b.length + 1)) + a.slice(i % (a.length + 1)),
            ]) {
              if (spliced !== a && spliced !== b) catchCheckpointError(() => decode(spliced));
            }
          }
          // Part-level splices: one token's MAC or header over the other's segments, and
          // segments swapped, dropped or repeated.
          const partsA = a.split(".");
          const partsB = b.split(".");
          const candidates = [
            [...partsA.slice(0, 2), ...partsB.slice(2)],
            [...partsA.slice(0, 3), ...partsB.slice(3)],
            [...partsB.slice(0, 3), ...partsA.slice(3)],
            [...partsA, ...partsA.slice(3)],
            [...partsA.slice(0, 3), ...partsA.slice(3).reverse()],
            [...partsA.slice(0, 3), ...partsA.slice(4)],
          ];
          for (const parts of candidates) {
            const spliced = parts.join(".");
            if (spliced !== a && spliced !== b) catchCheckpointError(() => decode(spliced));
          }
        },
      ),
      { ...settings, numRuns: 30 },
    );
  });
});
