import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catchCheckpointError, expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { checkpointStateSchema } from "./checkpoint-state.js";
import { decodeCheckpoint, inspectCheckpoint } from "./decode-checkpoint.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { hydrateCheckpoint } from "./hydrate-checkpoint.js";

// A token written in format version 1 (by src/__fixtures__/make-checkpoint-v1.mjs, which shares
// no code with the decoder) must keep decoding now that version 2 is what encode writes.
const fixture = JSON.parse(
  readFileSync(new URL("./__fixtures__/checkpoint-v1.json", import.meta.url), "utf8"),
) as { secret: string; audience: string; token: string; expected: unknown };
const expected = checkpointStateSchema.parse(fixture.expected);
const decode = (token: string) =>
  decodeCheckpoint({ token, secret: fixture.secret, audience: fixture.audience });

describe("format version 1 fixture", () => {
  it("is a version 1 token", () => {
    expect(fixture.token.split(".")).toHaveLength(3);
    expect(fixture.token.startsWith("cp1.")).toBe(true);
  });

  it("decodes to the recorded state, upgraded to the current state format", () => {
    expect(decode(fixture.token)).toEqual(expected);
    expect(expected.formatVersion).toBe(2);
    expect(expected.messages.map((message) => message.kind)).toEqual([
      "summary",
      "request-context",
      "runtime",
      "user",
      "assistant",
      "tool-result",
      "tool-result",
      "assistant",
      "runtime",
      "runtime",
      "assistant",
    ]);
  });

  it("hydrates with identities, images, replay state and the pending tool call intact", () => {
    const { history, turns, epoch } = hydrateCheckpoint(decode(fixture.token));
    expect(epoch).toBe(1);
    expect(history.headDigest).toBe(expected.headDigest);
    expect(history.latestRequestContext()?.id).toBe(expected.latestRequestContextId);
    expect(history.findByEventId("inject.inj-1")?.id).toBe("runtime:inject.inj-1");
    expect(history.findByEventId("bg.shell.t1.call_b")?.kind).toBe("runtime");
    expect(history.get("tool-result:call_a")).toMatchObject({ image: { mimeType: "image/png" } });
    expect(history.get("assistant:r1:0")).toMatchObject({
      replay: { openai: { encryptedContent: "gAAAAB-opaque", id: "rs_1" } },
    });
    expect(history.pendingToolCalls()).toEqual([
      {
        index: 0,
        callId: "call_c",
        name: "grep",
        arguments: '{"pattern":"import"}',
        assistantId: "assistant:r2:0",
      },
    ]);
    expect(turns).toEqual(expected.turns);
  });

  it("re-encodes as version 2 to the same state", () => {
    const state = decode(fixture.token);
    const token = encodeCheckpoint({ state, secret: fixture.secret, audience: fixture.audience });
    expect(token.startsWith("cp2.")).toBe(true);
    expect(decode(token)).toEqual(expected);
  });

  it("inspects as version 1", () => {
    expect(
      inspectCheckpoint({
        token: fixture.token,
        secret: fixture.secret,
        audience: fixture.audience,
      }),
    ).toEqual({
      tokenVersion: 1,
      conversationId: "conv-fixture-v1",
      epoch: 1,
      headDigest: expected.headDigest,
      messageCount: 11,
      turnCount: 2,
      latestRequestContextId: expected.latestRequestContextId,
      promptSpecDigest: expected.promptSpecDigest,
    });
  });

  it("refuses a version 1 token under another secret or audience, cut, or over the size limit", () => {
    expectReason(
      () =>
        decodeCheckpoint({ token: fixture.token, secret: fixture.secret, audience: "tenant-b" }),
      "bad-mac",
    );
    expectReason(
      () => decodeCheckpoint({ token: fixture.token, secret: "other-secret-0123456789" }),
      "bad-mac",
    );
    const [version, payload, mac] = fixture.token.split(".");
    expectReason(() => decode(`${version}.${payload}`), "truncated");
    expectReason(() => decode(`${fixture.token}.x`), "malformed");
    expectReason(() => decode(`${version}.${payload!.slice(0, -4)}.${mac}`), "bad-mac");
    // The payload inflates to more than the limit although the token fits in it.
    const error = catchCheckpointError(() =>
      decodeCheckpoint({
        token: fixture.token,
        secret: fixture.secret,
        audience: fixture.audience,
        maxBytes: fixture.token.length + 1,
      }),
    );
    expect(error.reason).toBe("too-large");
  });

  it("rejects a sample of single-bit flips across the whole token", () => {
    const bytes = Buffer.from(fixture.token, "latin1");
    // Every 7th bit position: spread over every character and every bit of a character.
    for (let bit = 0; bit < bytes.byteLength * 8; bit += 7) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      catchCheckpointError(() => decode(flipped.toString("latin1")));
    }
  });
});
