import * as run from "@cursor/run";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentConversation } from "./__fixtures__/histories.js";
import { growingStates, stateOf, testSecret } from "./__fixtures__/states.js";
import { MemoryBlobStore } from "./blob-store.js";
import { encodeCheckpointDelta } from "./checkpoint-delta.js";
import { decodeCheckpoint } from "./decode-checkpoint.js";
import { createCheckpointEncodeCache } from "./encode-cache.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { writeCheckpoint } from "./write-checkpoint.js";

// This package's hashing goes through `@cursor/run`'s `sha256Hex`: counting its calls on a
// message's canonical JSON (an object with a "role"; turn records have none) counts the message
// content ids computed here. The log's own hashing happens inside `@cursor/run`, uncounted.
vi.mock("@cursor/run", async (importOriginal) => {
  const original = await importOriginal<typeof run>();
  return { ...original, sha256Hex: vi.fn(original.sha256Hex) };
});

const contentIdHashes = () =>
  vi
    .mocked(run.sha256Hex)
    .mock.calls.filter(
      ([input]) => typeof input === "string" && input.startsWith("{") && input.includes('"role":'),
    ).length;

afterEach(() => vi.mocked(run.sha256Hex).mockClear());

describe("the content ids of a state made from a log", () => {
  it("are the log's digests: encoding, a delta and a stored checkpoint hash no message", async () => {
    const built = agentConversation(40);
    const state = stateOf(built);
    expect(state.messages.length).toBeGreaterThan(100);
    // The log holds its messages' digests itself, not in a memo entry per message.
    expect(state.messages.every((message) => run.knownMessageDigest(message) === undefined)).toBe(
      true,
    );
    vi.mocked(run.sha256Hex).mockClear();
    const cache = createCheckpointEncodeCache();
    const token = encodeCheckpoint({ state, secret: testSecret, cache });
    encodeCheckpoint({ state, secret: testSecret, cache });
    encodeCheckpointDelta({
      state,
      base: { messageCount: 0, turnCount: 0, headDigest: run.emptyHeadDigest(state.epoch) },
      secret: testSecret,
    });
    await writeCheckpoint({ store: new MemoryBlobStore(), state });
    expect(contentIdHashes()).toBe(0);
    expect(decodeCheckpoint({ token, secret: testSecret })).toEqual(state);
  });

  it("are validated and hashed for a state no log made (the count above can fail)", () => {
    const state = stateOf(agentConversation(3));
    const copy = structuredClone(state);
    vi.mocked(run.sha256Hex).mockClear();
    const token = encodeCheckpoint({ state: copy, secret: testSecret });
    expect(contentIdHashes()).toBe(copy.messages.length);
    expect(decodeCheckpoint({ token, secret: testSecret })).toEqual(state);
  });

  it("are hashed for a message the log no longer holds at that index (a later epoch)", () => {
    const built = agentConversation(3);
    const state = stateOf(built);
    const kept = built.history.messages.at(-1)!;
    built.history.startEpoch([kept]);
    vi.mocked(run.sha256Hex).mockClear();
    const token = encodeCheckpoint({ state, secret: testSecret });
    // Index 0 of the log is now the kept message, not the state's first: every id is computed.
    expect(contentIdHashes()).toBe(state.messages.length);
    expect(decodeCheckpoint({ token, secret: testSecret })).toEqual(state);
  });
});

describe("the content ids of turn records", () => {
  it("are hashed once while conversations grow: encodings turn after turn hash only new turns", () => {
    const turnHashes = () =>
      vi
        .mocked(run.sha256Hex)
        .mock.calls.filter(
          ([input]) =>
            typeof input === "string" && input.startsWith("{") && input.includes('"messageIds":'),
        ).length;
    // Sixteen conversations at once, each with its own encode cache: their open segments hold
    // more turns than the process-wide memo of recent turn ids, so what spares the hashing is
    // each cache's ids of its conversation's open segment.
    const conversations = Array.from({ length: 16 }, () => {
      const built = agentConversation(30);
      return {
        built,
        states: [...growingStates(built)],
        cache: createCheckpointEncodeCache({ scope: "conversation" }),
      };
    });
    vi.mocked(run.sha256Hex).mockClear();
    for (let turn = 0; turn < 30; turn += 1) {
      for (const { states, cache } of conversations) {
        encodeCheckpoint({ state: states[turn]!, secret: testSecret, cache });
      }
    }
    expect(turnHashes()).toBe(16 * 30);
  });
});
