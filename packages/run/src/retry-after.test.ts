import { describe, expect, it } from "vitest";
import { parseRetryAfterMs } from "./retry-after.js";

const headers = (values: Record<string, string>) => new Headers(values);

describe("parseRetryAfterMs", () => {
  it("prefers retry-after-ms, then seconds, then an HTTP date", () => {
    expect(
      parseRetryAfterMs({ headers: headers({ "retry-after-ms": "1500.2", "retry-after": "9" }) }),
    ).toBe(1501);
    expect(parseRetryAfterMs({ headers: headers({ "retry-after": "7" }) })).toBe(7000);
    expect(parseRetryAfterMs({ headers: headers({ "retry-after": "0.25" }) })).toBe(250);
    const now = () => Date.parse("2026-11-29T10:00:00Z");
    expect(
      parseRetryAfterMs({
        headers: headers({ "retry-after": "Sun, 29 Nov 2026 10:00:03 GMT" }),
        now,
      }),
    ).toBe(3000);
    expect(
      parseRetryAfterMs({
        headers: headers({ "retry-after": "Sun, 29 Nov 2026 09:00:00 GMT" }),
        now,
      }),
    ).toBe(0);
  });

  it("is undefined when absent or unparsable", () => {
    expect(parseRetryAfterMs({ headers: undefined })).toBeUndefined();
    expect(parseRetryAfterMs({ headers: headers({}) })).toBeUndefined();
    expect(parseRetryAfterMs({ headers: headers({ "retry-after": "soon" }) })).toBeUndefined();
    expect(parseRetryAfterMs({ headers: headers({ "retry-after-ms": "-5" }) })).toBeUndefined();
  });
});
