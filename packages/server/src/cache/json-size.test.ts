import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonSize } from "./json-size.js";

/** JSON values whose strings need no escapes and whose numbers are small integers. */
const plainJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.stringMatching(/^[a-zA-Z0-9 .,:_-]{0,20}$/),
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("jsonSize", () => {
  it("is the length of JSON.stringify for values that need no escapes", () => {
    fc.assert(
      fc.property(plainJson, (value) => {
        expect(jsonSize(value)).toBe(JSON.stringify(value).length);
      }),
    );
  });

  it("leaves out undefined properties, as JSON.stringify does, and estimates the rest", () => {
    expect(jsonSize({ a: 1, b: undefined, c: "x" })).toBe(JSON.stringify({ a: 1, c: "x" }).length);
    expect(jsonSize(0.1)).toBeGreaterThanOrEqual(String(0.1).length);
    expect(jsonSize(undefined)).toBe(0);
    // Escapes are not counted: an estimate, never under by more than the escapes.
    expect(jsonSize('say "hi"\n')).toBe(JSON.stringify('say "hi"\n').length - 3);
  });
});
