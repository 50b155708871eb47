import { emptyHeadDigest } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { conversationId, growingStates, testSecret } from "./__fixtures__/states.js";
import {
  decodeCheckpointChain,
  encodeCheckpointDelta,
  inspectCheckpointDelta,
} from "./checkpoint-delta.js";
import type { CheckpointDeltaBase } from "./checkpoint-delta.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";

const audience = "tenant-a";
const baseOf = (state: CheckpointState | undefined, epoch = 0): CheckpointDeltaBase =>
  state === undefined
    ? { messageCount: 0, turnCount: 0, headDigest: emptyHeadDigest(epoch) }
    : {
        messageCount: state.messages.length,
        turnCount: state.turns.length,
        headDigest: state.headDigest,
      };

/** One delta per turn of a growing conversation, each from the state before it. */
function deltasOf(states: readonly CheckpointState[]): string[] {
  return states.map((state, index) =>
    encodeCheckpointDelta({ state, base: baseOf(states[index - 1]), secret: testSecret, audience }),
  );
}

describe("delta checkpoints (format version 3)", () => {
  it("a chain of deltas decodes to exactly the state a full checkpoint holds", () => {
    const states = [...growingStates(agentConversation(40))];
    const deltas = deltasOf(states);
    expect(deltas.every((token) => /^cp3(\.[A-Za-z0-9_-]+)+$/.test(token))).toBe(true);
    const last = states.at(-1)!;
    expect(decodeCheckpointChain({ tokens: deltas, secret: testSecret, audience })).toEqual(last);
    // A full checkpoint then the deltas after it: the same state.
    const full = encodeCheckpoint({ state: states[19]!, secret: testSecret, audience });
    expect(
      decodeCheckpointChain({
        tokens: [full, ...deltas.slice(20)],
        secret: testSecret,
        audience,
        conversationId,
      }),
    ).toEqual(last);
  });

  it("a delta's size follows what its turn added, not the conversation's length", () => {
    const states = [...growingStates(agentConversation(200))];
    const deltas = deltasOf(states);
    const full = (index: number) =>
      encodeCheckpoint({ state: states[index]!, secret: testSecret }).length;
    // The same kind of turn early and late: the delta stays within a small band, the full
    // token grows about 20 times.
    const early = deltas.slice(5, 15).reduce((sum, token) => sum + token.length, 0);
    const late = deltas.slice(185, 195).reduce((sum, token) => sum + token.length, 0);
    expect(late / early).toBeLessThan(1.5);
    expect(full(194) / full(9)).toBeGreaterThan(10);
  });

  it("the receiver tells a delta's base and head from its signed header", () => {
    const states = [...growingStates(agentConversation(4))];
    const token = encodeCheckpointDelta({
      state: states[3]!,
      base: baseOf(states[2]),
      secret: testSecret,
      audience,
    });
    expect(inspectCheckpointDelta({ token, secret: testSecret, audience })).toEqual({
      tokenVersion: 3,
      conversationId,
      epoch: 0,
      headDigest: states[3]!.headDigest,
      messageCount: states[3]!.messages.length,
      turnCount: 4,
      latestRequestContextId: states[3]!.latestRequestContextId,
      base: baseOf(states[2]),
    });
  });

  it("refuses a chain without its start, with a gap, tampered, or for another audience", () => {
    const states = [...growingStates(agentConversation(6))];
    const deltas = deltasOf(states);
    expectReason(
      () => decodeCheckpointChain({ tokens: deltas.slice(1), secret: testSecret, audience }),
      "incomplete",
    );
    expectReason(
      () =>
        decodeCheckpointChain({
          tokens: [deltas[0]!, deltas[2]!],
          secret: testSecret,
          audience,
        }),
      "manifest-mismatch",
    );
    const parts = deltas[1]!.split(".");
    const segment = parts[3]!;
    parts[3] = `${segment.slice(0, 10)}${segment[10] === "A" ? "B" : "A"}${segment.slice(11)}`;
    expectReason(
      () =>
        decodeCheckpointChain({
          tokens: [deltas[0]!, parts.join(".")],
          secret: testSecret,
          audience,
        }),
      "bad-mac",
    );
    expectReason(
      () => inspectCheckpointDelta({ token: parts.join("."), secret: testSecret, audience }),
      "bad-mac",
    );
    expectReason(
      () => decodeCheckpointChain({ tokens: deltas, secret: testSecret, audience: "tenant-b" }),
      "bad-mac",
    );
    expectReason(
      () =>
        decodeCheckpointChain({
          tokens: deltas,
          secret: testSecret,
          audience,
          conversationId: "other",
        }),
      "foreign-conversation",
    );
    expectReason(
      () => decodeCheckpointChain({ tokens: deltas, secret: testSecret, audience, maxBytes: 100 }),
      "too-large",
    );
  });

  it("never mints a delta whose messages do not continue its base", () => {
    const states = [...growingStates(agentConversation(3))];
    expectReason(
      () =>
        encodeCheckpointDelta({
          state: states[2]!,
          base: { ...baseOf(states[1]), headDigest: states[0]!.headDigest },
          secret: testSecret,
        }),
      "head-mismatch",
    );
    expectReason(
      () =>
        encodeCheckpointDelta({
          state: states[1]!,
          base: baseOf(states[2]),
          secret: testSecret,
        }),
      "invalid-state",
    );
  });
});
