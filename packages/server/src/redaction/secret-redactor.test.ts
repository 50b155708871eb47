import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SecretRedactor, secretVariants } from "./secret-redactor.js";

const key = "sk-live/Key+With=Odd~Chars 0123456789";

describe("SecretRedactor", () => {
  const redactor = new SecretRedactor({ secrets: [key] });

  it("removes the secret plain, URL-encoded (both hex cases, form spaces) and JSON-escaped", () => {
    for (const form of [
      key,
      encodeURIComponent(key),
      encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
      encodeURIComponent(key).replace(/%20/g, "+"),
    ]) {
      expect(redactor.redactContent(`before ${form} after`)).not.toContain(form);
    }
    const quoted = new SecretRedactor({ secrets: ['pass"word\\0123'] });
    expect(quoted.redactContent(JSON.stringify({ k: 'pass"word\\0123' }))).toBe(
      '{"k":"[redacted]"}',
    );
  });

  it("removes base64 and base64url forms at every byte alignment inside a longer encoding", () => {
    for (const prefix of ["", "a", "ab", "abc", "user:", "Bearer "]) {
      for (const suffix of ["", "z", "zz"]) {
        const encoded = Buffer.from(`${prefix}${key}${suffix}`).toString("base64");
        const url = Buffer.from(`${prefix}${key}${suffix}`).toString("base64url");
        for (const text of [encoded, url]) {
          const redacted = redactor.redactContent(`x ${text} y`);
          expect(redacted).toContain("[redacted]");
          // What is left is the surrounding bytes' encoding and a character or two at each edge.
          const left = redacted.replace(/^x |\[redacted\]| y$/g, "").length;
          expect(left).toBeLessThanOrEqual(
            Math.ceil((4 * (prefix.length + suffix.length)) / 3) + 6,
          );
        }
      }
    }
  });

  it("redacts key-shaped values in diagnostics only", () => {
    const text = "Incorrect API key provided: sk-proj-abcdefgh1234.";
    expect(redactor.redact(text)).toBe("Incorrect API key provided: [redacted].");
    expect(redactor.redactContent(text)).toBe(text);
  });

  it("ignores secrets too short to tell from text, and registers run-time secrets", () => {
    const local = new SecretRedactor({ secrets: ["short"] });
    expect(local.size).toBe(0);
    expect(local.redactContent("a short text")).toBe("a short text");
    local.register("ide-session-token-0123456789");
    expect(local.redactContent("Bearer ide-session-token-0123456789")).toBe("Bearer [redacted]");
  });

  it("forgets the least recently registered secret beyond its bound, never a configured one", () => {
    const local = new SecretRedactor({ secrets: [key], maxRegistered: 2 });
    local.register("registered-one-0123");
    local.register("registered-two-0123");
    local.register("registered-one-0123");
    local.register("registered-three-0123");
    expect(local.size).toBe(3);
    expect(local.redactContent("registered-two-0123")).toBe("registered-two-0123");
    expect(local.redactContent("registered-one-0123 registered-three-0123 " + key)).toBe(
      "[redacted] [redacted] [redacted]",
    );
  });

  it("redactValue copies only what changed", () => {
    const clean = { a: ["x", { b: 1 }], c: null };
    expect(redactor.redactValue(clean)).toBe(clean);
    const dirty = { a: ["x", { b: key }], c: null };
    const redacted = redactor.redactValue(dirty);
    expect(redacted).toEqual({ a: ["x", { b: "[redacted]" }], c: null });
    expect(redacted.a[0]).toBe("x");
    expect(dirty.a[1]).toEqual({ b: key });
  });

  it("redactError redacts message, stack and causes in place", () => {
    const error = new Error(`outer ${key}`, { cause: new Error(`inner ${key}`) });
    expect(redactor.redactError(error)).toBe(error);
    expect(error.message).toBe("outer [redacted]");
    expect(error.stack).not.toContain(key);
    expect((error.cause as Error).message).toBe("inner [redacted]");
  });

  it("a stream redactor finds a secret split across deltas anywhere, and holds back nothing else", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 8 }),
        (before, after, cuts) => {
          const text = `${before}${key}${after}`;
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const deltas = [0, ...points, text.length]
            .slice(1)
            .map((end, index, ends) => text.slice(index === 0 ? 0 : ends[index - 1], end));
          const stream = redactor.stream();
          const out = deltas.map((delta) => stream.push(delta)).join("") + stream.flush();
          expect(out).toBe(redactor.redactContent(text));
          expect(out).not.toContain(key);
        },
      ),
    );
    const stream = redactor.stream();
    // No variant starts with these characters: nothing is held back.
    expect(stream.push("hello world")).toBe("hello world");
    expect(stream.push(" and s")).toBe(" and ");
    expect(stream.push("o on")).toBe("so on");
    expect(stream.flush()).toBe("");
  });

  it("every variant is long enough not to match ordinary text", () => {
    for (const variant of secretVariants("abcdefgh"))
      expect(variant.length).toBeGreaterThanOrEqual(8);
  });
});
