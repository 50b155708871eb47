import {
  canonicalJson,
  chainHeadDigest,
  emptyHeadDigest,
  messageDigest,
  sha256Hex,
} from "@cursor/run";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { blobOf, craftToken } from "./__fixtures__/craft-token.js";
import { catchCheckpointError, expectReason } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { conversationId, stateOf, testSecret } from "./__fixtures__/states.js";
import { decodeCheckpoint, inspectCheckpoint } from "./decode-checkpoint.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";
import { encodeSegmentContent } from "./token-segment.js";

const state = stateOf(agentConversation(3));
const token = encodeCheckpoint({ state, secret: testSecret, audience: "tenant-a" });
const decode = (candidate: string, options: { audience?: string; maxBytes?: number } = {}) =>
  decodeCheckpoint({ token: candidate, secret: testSecret, audience: "tenant-a", ...options });

const [first, second] = state.messages;
const firstId = messageDigest(first!);
const headOf = (...ids: string[]) => ids.reduce(chainHeadDigest, emptyHeadDigest(0));
const baseHeader = {
  conversationId,
  epoch: 0,
  headDigest: headOf(firstId),
  messageCount: 1,
  turnCount: 0,
};

describe("decodeCheckpoint", () => {
  it("returns the exact state for the right secret and audience", () => {
    expect(decode(token)).toEqual(state);
    expect(
      decodeCheckpoint({ token, secret: Buffer.from(testSecret), audience: "tenant-a" }),
    ).toEqual(state);
  });

  it("refuses another secret, another audience or none as bad-mac", () => {
    expectReason(
      () => decodeCheckpoint({ token, secret: "another-secret-0123456789", audience: "tenant-a" }),
      "bad-mac",
    );
    expectReason(() => decode(token, { audience: "tenant-b" }), "bad-mac");
    expectReason(() => decodeCheckpoint({ token, secret: testSecret }), "bad-mac");
    expectReason(
      () => decodeCheckpoint({ token, secret: "short", audience: "tenant-a" }),
      "invalid-secret",
    );
  });

  it("refuses a checkpoint of another conversation when told which one is expected", () => {
    expect(
      decodeCheckpoint({ token, secret: testSecret, audience: "tenant-a", conversationId }),
    ).toEqual(state);
    const error = catchCheckpointError(() =>
      decodeCheckpoint({
        token,
        secret: testSecret,
        audience: "tenant-a",
        conversationId: "conv-2",
      }),
    );
    expect(error.reason).toBe("foreign-conversation");
  });

  it("names unknown versions and refuses what is not a token", () => {
    expectReason(() => decode(token.replace(/^cp2/, "cp3")), "unknown-version");
    expectReason(() => decode(`cp99.${token.slice(4)}`), "unknown-version");
    for (const junk of ["", "cp2", "hello", "cp.x", "CP2.x.y", "cp02.x.y", token.slice(1)]) {
      const error = catchCheckpointError(() => decode(junk));
      expect(["malformed", "truncated"]).toContain(error.reason);
    }
    expectReason(() => decode("cp2"), "truncated");
    expectReason(() => decode("nothing"), "malformed");
    expectReason(() => decode(42 as unknown as string), "malformed");
  });

  it("reports cut tokens as truncated and extra parts as malformed", () => {
    const parts = token.split(".");
    expectReason(() => decode(parts.slice(0, 2).join(".")), "truncated");
    expectReason(() => decode(parts.slice(0, -1).join(".")), "truncated");
    expectReason(() => decode(token.slice(0, -5)), "truncated");
    expectReason(() => decode(`${token}.`), "malformed");
    expectReason(() => decode(`${token}.AAAA`), "malformed");
    expectReason(() => decode(`${token}AAAA`), "malformed");
  });

  it("checks the token length and the declared decompressed size against maxBytes", () => {
    expectReason(() => decode(token, { maxBytes: token.length - 1 }), "too-large");
    for (const maxBytes of [0, -1, 1.5, Number.NaN, 2 ** 33]) {
      expect(() => decode(token, { maxBytes })).toThrow(RangeError);
    }
    const big = stateOf(agentConversation(60));
    const bigToken = encodeCheckpoint({ state: big, secret: testSecret, audience: "tenant-a" });
    // The content is far larger than its compressed token.
    expectReason(() => decode(bigToken, { maxBytes: bigToken.length + 10 }), "too-large");
    expect(decode(bigToken)).toEqual(big);
  });

  it("refuses a signed segment that inflates past its declared size (zip bomb)", () => {
    const content = encodeSegmentContent([blobOf(first)]);
    const bomb = craftToken({
      secret: testSecret,
      audience: "tenant-a",
      header: baseHeader,
      segments: [
        {
          kind: "m",
          blobs: [blobOf(first)],
          compressed: deflateRawSync(Buffer.concat([content, Buffer.alloc(5_000_000)])),
          size: content.byteLength,
        },
      ],
    });
    expect(bomb.length).toBeLessThan(10_000);
    expectReason(() => decode(bomb), "malformed");
    const huge = craftToken({
      secret: testSecret,
      audience: "tenant-a",
      header: baseHeader,
      segments: [{ kind: "m", blobs: [blobOf(first)], size: 2 ** 40 }],
    });
    expectReason(() => decode(huge), "too-large");
  });

  it("checks every blob, the manifest and the head digest behind a valid MAC", () => {
    const craft = (header: object, segments: Parameters<typeof craftToken>[0]["segments"]) =>
      craftToken({
        secret: testSecret,
        audience: "tenant-a",
        header: { ...baseHeader, ...header },
        segments,
      });
    // Sound as crafted: the helper itself makes valid tokens.
    expect(decode(craft({}, [{ kind: "m", blobs: [blobOf(first)] }])).messages).toEqual([first]);
    const forged = { ...blobOf(first), id: messageDigest(second!) };
    expectReason(() => decode(craft({}, [{ kind: "m", blobs: [forged] }])), "blob-mismatch");
    expectReason(
      () => decode(craft({}, [{ kind: "m", count: 2, blobs: [blobOf(first)] }])),
      "manifest-mismatch",
    );
    expectReason(
      () => decode(craft({ messageCount: 2 }, [{ kind: "m", blobs: [blobOf(first)] }])),
      "manifest-mismatch",
    );
    expectReason(
      () => decode(craft({ turnCount: 1 }, [{ kind: "m", blobs: [blobOf(first)] }])),
      "manifest-mismatch",
    );
    expectReason(
      () =>
        decode(
          craft({ messageCount: 2, headDigest: headOf(firstId, messageDigest(second!)) }, [
            { kind: "m", blobs: [blobOf(first)] },
            { kind: "m", blobs: [blobOf(second)] },
          ]),
        ),
      "manifest-mismatch",
    );
    expectReason(
      () => decode(craft({ headDigest: sha256Hex("x") }, [{ kind: "m", blobs: [blobOf(first)] }])),
      "head-mismatch",
    );
    expectReason(
      () => decode(craft({ epoch: 1 }, [{ kind: "m", blobs: [blobOf(first)] }])),
      "head-mismatch",
    );
  });

  it("accepts only canonical, schema-valid blobs", () => {
    const pretty = Buffer.from(JSON.stringify(first, null, 1));
    const prettyBlob = { id: sha256Hex(pretty), bytes: pretty };
    const turnBlob = blobOf(state.turns[0]);
    const craft = (blob: { id: string; bytes: Uint8Array }, kind: "m" | "t" = "m") =>
      craftToken({
        secret: testSecret,
        audience: "tenant-a",
        header: {
          ...baseHeader,
          headDigest: kind === "m" ? headOf(blob.id) : emptyHeadDigest(0),
          messageCount: kind === "m" ? 1 : 0,
          turnCount: kind === "t" ? 1 : 0,
        },
        segments: [{ kind, blobs: [blob] }],
      });
    expectReason(() => decode(craft(prettyBlob)), "malformed");
    expectReason(() => decode(craft(turnBlob)), "malformed");
    expectReason(() => decode(craft(blobOf(first), "t")), "malformed");
    const badUtf8 = Buffer.from([0xff, 0xfe]);
    expectReason(() => decode(craft({ id: sha256Hex(badUtf8), bytes: badUtf8 })), "malformed");
    expect(decode(craft(turnBlob, "t")).turns).toEqual([state.turns[0]]);
  });

  it("refuses a header that is signed but not a header", () => {
    const notAHeader = craftToken({
      secret: testSecret,
      audience: "tenant-a",
      header: { ...baseHeader, conversationId: "has space" },
      segments: [],
    });
    expectReason(() => decode(notAHeader), "malformed");
  });

  it("does not accept a version 2 token relabelled as version 1", () => {
    const parts = token.split(".");
    expectReason(() => decode(["cp1", parts[2], parts[1]].join(".")), "bad-mac");
  });
});

describe("inspectCheckpoint", () => {
  it("verifies the MAC and reports the header without decoding the history", () => {
    const withSpec = { ...state, promptSpecDigest: sha256Hex("spec") };
    const signed = encodeCheckpoint({ state: withSpec, secret: testSecret });
    expect(inspectCheckpoint({ token: signed, secret: testSecret })).toEqual({
      tokenVersion: 2,
      conversationId,
      epoch: 0,
      headDigest: state.headDigest,
      messageCount: 13,
      turnCount: 3,
      latestRequestContextId: state.latestRequestContextId,
      promptSpecDigest: sha256Hex("spec"),
    });
    // A signed header over a segment that is not even deflate: inspect trusts the MAC only.
    const header = { ...baseHeader };
    const broken = craftToken({
      secret: testSecret,
      header,
      segments: [{ kind: "m", blobs: [blobOf(first)], compressed: Buffer.from("not deflate") }],
    });
    expect(inspectCheckpoint({ token: broken, secret: testSecret })).toMatchObject({
      messageCount: 1,
    });
    expectReason(() => decodeCheckpoint({ token: broken, secret: testSecret }), "malformed");
    expectReason(
      () => inspectCheckpoint({ token: signed, secret: "another-secret-0123456" }),
      "bad-mac",
    );
    expectReason(
      () => inspectCheckpoint({ token: signed, secret: testSecret, conversationId: "conv-2" }),
      "foreign-conversation",
    );
    expectReason(
      () => inspectCheckpoint({ token: "cp7.a.b", secret: testSecret }),
      "unknown-version",
    );
  });

  it("is canonical JSON all the way: the header bytes are the canonical form", () => {
    const header = Buffer.from(token.split(".")[2]!, "base64url").toString("utf8");
    expect(canonicalJson(JSON.parse(header))).toBe(header);
  });
});
