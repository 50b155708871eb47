import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { catchCheckpointError } from "./__fixtures__/expect-checkpoint-error.js";
import { agentConversation } from "./__fixtures__/histories.js";
import { stateOf, testSecret } from "./__fixtures__/states.js";
import { decodeCheckpoint, inspectCheckpoint } from "./decode-checkpoint.js";
import { encodeCheckpoint } from "./encode-checkpoint.js";

// A request body may carry a 32 MiB checkpoint from anyone: what the gateway does with it before
// its MAC verifies must not grow with its size (no splitting, no strict decoding, no inflating).
const size = 32 * 1024 * 1024;
const mac = randomBytes(32).toString("base64url");
const smallHeader = Buffer.from('{"conversationId":"c"}').toString("base64url");
const filler = (length: number) => "A".repeat(length);

const forged: Record<string, string> = {
  "v2, a huge segment": `cp2.${mac}.${smallHeader}.${filler(size)}`,
  "v2, millions of parts": `cp2.${mac}.${smallHeader}.${"a.".repeat(size / 2)}`,
  "v2, a huge header": `cp2.${mac}.${filler(size)}`,
  "v1, a huge payload": `cp1.${filler(size)}.${mac}`,
};

function medianMs(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2]!;
}

const refusalMs = (token: string) =>
  medianMs(() => {
    try {
      decodeCheckpoint({ token, secret: testSecret, audience: "tenant-a" });
    } catch {
      // refused
    }
  });

/**
 * What the machine takes right now for the one step a v1 token's MAC needs, a keyed hash of the
 * whole payload: the bound scales with the machine's load instead of being a fixed time.
 */
/** One linear scan of the token (finding a delimiter): the most a size check may cost. */
const scanMs = (text: string) => medianMs(() => void text.indexOf("\n"));

const hashMs = (text: string) =>
  medianMs(() => void createHmac("sha256", testSecret).update(text).digest());

describe("a forged 32 MiB checkpoint", () => {
  it.each(Object.keys(forged))("%s: refused before anything but its MAC is looked at", (name) => {
    const token = forged[name]!;
    for (const decode of [decodeCheckpoint, inspectCheckpoint]) {
      const error = catchCheckpointError(() =>
        decode({ token, secret: testSecret, audience: "tenant-a" }),
      );
      // A header larger than any real one is refused by its length alone; the rest by the MAC.
      expect(["bad-mac", "too-large"]).toContain(error.reason);
      const elapsed = medianMs(() => {
        try {
          decode({ token, secret: testSecret, audience: "tenant-a" });
        } catch {
          // refused, as asserted above
        }
      });
      // Version 2 authenticates a small header: constant work, about what a token of a
      // thousandth of the size takes. Version 1 MACs its whole payload, which costs one hash of
      // it (no pattern match, no strict decode, no round trip) before anything else.
      const bound = name.startsWith("v1")
        ? 3 * hashMs(token) + 25
        : 20 * refusalMs(token.slice(0, 32 * 1024)) + 10 * scanMs(token) + 25;
      expect(elapsed).toBeLessThan(bound);
    }
  });

  it("a genuine token with millions of parts appended is refused without splitting them", () => {
    const genuine = encodeCheckpoint({
      state: stateOf(agentConversation(3)),
      secret: testSecret,
      audience: "tenant-a",
    });
    const token = `${genuine}${".a".repeat(size / 2)}`;
    expect(
      catchCheckpointError(() =>
        decodeCheckpoint({ token, secret: testSecret, audience: "tenant-a" }),
      ).reason,
    ).toBe("malformed");
    const small = `${genuine}${".a".repeat(16 * 1024)}`;
    expect(refusalMs(token)).toBeLessThan(20 * refusalMs(small) + 25);
  });
});
