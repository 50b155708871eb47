import { HistoryLog, createRuntimeMessage, deepFreeze, sha256Hex } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { conversationId, growingStates, stateOf, testSecret } from "./__fixtures__/states.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { createCheckpointState } from "./create-checkpoint-state.js";
import { decodeCheckpoint } from "./decode-checkpoint.js";
import { createCheckpointEncodeCache } from "./encode-cache.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { decodeBase64Url } from "./token-codec.js";
import { tokenHeaderSchema } from "./token-header.js";

function headerOf(token: string) {
  return tokenHeaderSchema.parse(JSON.parse(decodeBase64Url(token.split(".")[2]!, "h").toString()));
}

describe("encodeCheckpoint", () => {
  it("writes a URL- and JSON-safe version 2 token that decodes to the same state", () => {
    const state = stateOf(agentConversation(3));
    const token = encodeCheckpoint({ state, secret: testSecret, audience: "tenant-a" });
    expect(token).toMatch(/^cp2(\.[A-Za-z0-9_-]+)+$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(JSON.stringify(token)).toBe(`"${token}"`);
    expect(decodeCheckpoint({ token, secret: testSecret, audience: "tenant-a" })).toEqual(state);
  });

  it("lays out a signed header, message segments of 32 blobs, then turn segments", () => {
    const state = { ...stateOf(agentConversation(20)), promptSpecDigest: sha256Hex("spec") };
    const token = encodeCheckpoint({ state, secret: testSecret });
    const header = headerOf(token);
    expect(header).toEqual({
      conversationId,
      epoch: 0,
      headDigest: state.headDigest,
      latestRequestContextId: state.latestRequestContextId,
      promptSpecDigest: sha256Hex("spec"),
      messageCount: 82,
      turnCount: 20,
      segments: [
        ["m", 32, expect.any(Number), expect.any(Number), expect.stringMatching(/^[0-9a-f]{64}$/)],
        ["m", 32, expect.any(Number), expect.any(Number), expect.stringMatching(/^[0-9a-f]{64}$/)],
        ["m", 18, expect.any(Number), expect.any(Number), expect.stringMatching(/^[0-9a-f]{64}$/)],
        ["t", 20, expect.any(Number), expect.any(Number), expect.stringMatching(/^[0-9a-f]{64}$/)],
      ],
    });
    const parts = token.split(".");
    expect(parts).toHaveLength(3 + 4);
    header.segments.forEach(([, , compressedLength, , digest], index) => {
      const compressed = decodeBase64Url(parts[3 + index]!, "s");
      expect(compressed.byteLength).toBe(compressedLength);
      expect(sha256Hex(compressed)).toBe(digest);
    });
  });

  it("encodes an empty conversation", () => {
    const state = createCheckpointState({
      conversationId,
      history: new HistoryLog({ epoch: 2 }),
      turns: [],
    });
    const token = encodeCheckpoint({ state, secret: testSecret });
    expect(token.split(".")).toHaveLength(3);
    expect(decodeCheckpoint({ token, secret: testSecret })).toEqual(state);
  });

  it("is deterministic, with or without a cache, frozen or not", () => {
    const state = stateOf(agentConversation(40));
    const token = encodeCheckpoint({ state, secret: testSecret });
    const cache = createCheckpointEncodeCache();
    expect(encodeCheckpoint({ state, secret: testSecret, cache })).toBe(token);
    expect(encodeCheckpoint({ state, secret: testSecret, cache })).toBe(token);
    expect(encodeCheckpoint({ state: structuredClone(state), secret: testSecret, cache })).toBe(
      token,
    );
    expect(encodeCheckpoint({ state: structuredClone(state), secret: testSecret })).toBe(token);
  });

  it("with a cache, re-compresses only the last message and turn segments after an append", () => {
    const cache = createCheckpointEncodeCache();
    const states = [...growingStates(agentConversation(30))];
    const lengths: number[] = [];
    for (const [index, state] of states.entries()) {
      const before = cache.stats;
      const token = encodeCheckpoint({ state, secret: testSecret, cache });
      const after = cache.stats;
      const header = headerOf(token);
      const messageSegments = header.segments.filter(([kind]) => kind === "m");
      const previousMessages = index === 0 ? 0 : states[index - 1]!.messages.length;
      // Segments a turn touches: each message segment from the one holding the first new
      // message to the last, and the last turn segment.
      const firstTouched = Math.floor(previousMessages / 32);
      const touched = header.segments.filter(([kind], position) =>
        kind === "m" ? position >= firstTouched : position === header.segments.length - 1,
      );
      expect(after.segmentsCompressed - before.segmentsCompressed).toBe(touched.length);
      expect(after.segmentsReused - before.segmentsReused).toBe(
        header.segments.length - touched.length,
      );
      expect(after.bytesCompressed - before.bytesCompressed).toBe(
        touched.reduce((sum, [, , , size]) => sum + size, 0),
      );
      expect(decodeCheckpoint({ token, secret: testSecret })).toEqual(state);
      lengths.push(messageSegments.length);
    }
    expect(lengths.at(-1)).toBe(4);
  });

  it("hits the cache for a history rebuilt from other objects (content-keyed)", () => {
    const state = stateOf(agentConversation(40));
    const cache = createCheckpointEncodeCache();
    encodeCheckpoint({ state, secret: testSecret, cache });
    const before = cache.stats;
    encodeCheckpoint({ state: deepFreeze(structuredClone(state)), secret: testSecret, cache });
    expect(cache.stats.segmentsCompressed).toBe(before.segmentsCompressed);
    expect(cache.stats.segmentsReused - before.segmentsReused).toBe(before.entries);
  });

  it("keeps the cache within its byte budget, least recently used out first", () => {
    const cache = createCheckpointEncodeCache({ maxBytes: 8_000 });
    const state = stateOf(agentConversation(60));
    const token = encodeCheckpoint({ state, secret: testSecret, cache });
    expect(cache.stats.cachedBytes).toBeLessThanOrEqual(8_000);
    expect(cache.stats.entries).toBeGreaterThan(0);
    expect(encodeCheckpoint({ state, secret: testSecret, cache })).toBe(token);
    cache.clear();
    expect(cache.stats).toMatchObject({ entries: 0, cachedBytes: 0 });
    expect(() =>
      encodeCheckpoint({
        state,
        secret: testSecret,
        cache: { stats: cache.stats, clear() {}, releaseParts() {}, restoreParts: () => 0 },
      }),
    ).toThrow(TypeError);
  });

  it("a conversation-scoped cache keeps only the full segments of its latest token", () => {
    const shared = createCheckpointEncodeCache();
    const scoped = createCheckpointEncodeCache({ scope: "conversation" });
    const states = [...growingStates(agentConversation(30))];
    for (const state of states) {
      const token = encodeCheckpoint({ state, secret: testSecret, cache: shared });
      expect(encodeCheckpoint({ state, secret: testSecret, cache: scoped })).toBe(token);
      const full = headerOf(token).segments.filter(([, count]) => count === 32);
      // Exactly the token's full segments: no partial one, none of an earlier head.
      expect(scoped.stats.entries).toBe(full.length);
    }
    const last = states.at(-1)!;
    expect(scoped.stats.cachedBytes).toBeLessThan(shared.stats.cachedBytes);
    // Re-encoding the latest head compresses only its segments that are not full.
    const before = scoped.stats;
    const token = encodeCheckpoint({ state: last, secret: testSecret, cache: scoped });
    const partial = headerOf(token).segments.filter(([, count]) => count < 32);
    expect(scoped.stats.segmentsCompressed - before.segmentsCompressed).toBe(partial.length);
    expect(scoped.stats.segmentsReused - before.segmentsReused).toBe(before.entries);
    // Another head (here an earlier one) replaces what the cache holds.
    encodeCheckpoint({ state: states[0]!, secret: testSecret, cache: scoped });
    const firstFull = headerOf(
      encodeCheckpoint({ state: states[0]!, secret: testSecret }),
    ).segments.filter(([, count]) => count === 32).length;
    expect(scoped.stats.entries).toBe(firstFull);
  });

  it("releases its segments' bytes and takes them back from the token the client returns", () => {
    const cache = createCheckpointEncodeCache({ scope: "conversation" });
    const states = [...growingStates(agentConversation(30))];
    let token = encodeCheckpoint({ state: states[0]!, secret: testSecret, cache });
    for (const state of states.slice(1)) {
      const held = cache.stats;
      cache.releaseParts();
      const released = cache.stats;
      expect(released.entries).toBe(held.entries);
      // What is left names the segments; their bytes are the client's.
      const parts = token.split(".").slice(3);
      const fullParts = headerOf(token)
        .segments.map(([, count], index) => (count === 32 ? parts[index]!.length : 0))
        .reduce((sum, length) => sum + length, 0);
      expect(held.cachedBytes - released.cachedBytes).toBe(fullParts);
      expect(cache.restoreParts(token)).toBe(held.entries);
      expect(cache.stats.cachedBytes).toBe(held.cachedBytes);
      const compressed = cache.stats.segmentsCompressed;
      const next = encodeCheckpoint({ state, secret: testSecret, cache });
      expect(next).toBe(encodeCheckpoint({ state, secret: testSecret }));
      // Only what is not a restored full segment was compressed.
      const partial = headerOf(next).segments.filter(([, count]) => count < 32).length;
      const newFull = headerOf(next).segments.filter(([, count]) => count === 32).length;
      expect(cache.stats.segmentsCompressed - compressed).toBe(partial + newFull - held.entries);
      token = next;
    }
    expect(cache.stats.entries).toBeGreaterThan(0);
  });

  it("compresses a released segment again when its bytes are not given back", () => {
    const cache = createCheckpointEncodeCache({ scope: "conversation" });
    const state = stateOf(agentConversation(40));
    const token = encodeCheckpoint({ state, secret: testSecret, cache });
    const held = cache.stats.entries;
    expect(held).toBeGreaterThan(1);
    cache.releaseParts();
    // Not a token of this format, a malformed one, and one of another conversation's segments.
    expect(cache.restoreParts("cp3.a.b.c")).toBe(0);
    expect(cache.restoreParts("cp2.not-a-header")).toBe(0);
    const other = encodeCheckpoint({ state: stateOf(agentConversation(3)), secret: testSecret });
    expect(cache.restoreParts(other)).toBe(0);
    // A part of the right digest but the wrong length is not taken.
    const [version, mac, header, first, ...rest] = token.split(".");
    expect(cache.restoreParts([version, mac, header, `${first}AA`, ...rest].join("."))).toBe(
      held - 1,
    );
    const before = cache.stats.segmentsCompressed;
    expect(encodeCheckpoint({ state, secret: testSecret, cache })).toBe(token);
    const partial = headerOf(token).segments.filter(([, count]) => count < 32).length;
    expect(cache.stats.segmentsCompressed - before).toBe(partial + 1);
  });

  it("refuses a state whose head digest is not its messages'", () => {
    const state = stateOf(agentConversation(2));
    expectReason(
      () =>
        encodeCheckpoint({ state: { ...state, headDigest: sha256Hex("x") }, secret: testSecret }),
      "head-mismatch",
    );
    const reordered: CheckpointState = { ...state, messages: [...state.messages].reverse() };
    expectReason(() => encodeCheckpoint({ state: reordered, secret: testSecret }), "head-mismatch");
  });

  it("refuses invalid states and short secrets", () => {
    const state = stateOf(agentConversation(1));
    const runtime = createRuntimeMessage({
      eventId: "turn.m9.x",
      runtimeKind: "user-turn",
      content: [{ type: "text", text: "x" }],
    });
    const invalid: unknown[] = [
      { ...state, formatVersion: 3 },
      { ...state, headDigest: "ABC" },
      { ...state, messages: [{ ...runtime, role: "assistant" }] },
      { ...state, turns: [{ ...state.turns[0], runId: "has space" }] },
      { ...state, promptSpecDigest: "not-a-digest" },
    ];
    for (const candidate of invalid) {
      expectReason(
        () => encodeCheckpoint({ state: candidate as CheckpointState, secret: testSecret }),
        "invalid-state",
      );
    }
    expectReason(() => encodeCheckpoint({ state, secret: "too-short" }), "invalid-secret");
  });
});
