import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { formatTimestamp, formatTimestampFromParts } from "./format-timestamp.js";

describe("formatTimestamp", () => {
  it.each([
    ["2026-03-29T00:59:59Z", "Europe/Berlin", "Sunday, 2026-03-29 01:59 UTC+01:00"],
    ["2026-03-29T01:00:00Z", "Europe/Berlin", "Sunday, 2026-03-29 03:00 UTC+02:00"],
    ["2026-11-01T05:59:00Z", "America/New_York", "Sunday, 2026-11-01 01:59 UTC-04:00"],
    ["2026-11-01T06:00:00Z", "America/New_York", "Sunday, 2026-11-01 01:00 UTC-05:00"],
    ["2026-01-01T00:00:00Z", "Asia/Kathmandu", "Thursday, 2026-01-01 05:45 UTC+05:45"],
    ["2026-12-31T23:59:59.999Z", "UTC", "Thursday, 2026-12-31 23:59 UTC+00:00"],
    ["2026-01-01T00:00:00Z", "Etc/GMT+1", "Wednesday, 2025-12-31 23:00 UTC-01:00"],
    ["0050-06-01T12:00:00Z", "UTC", "Wednesday, 0050-06-01 12:00 UTC+00:00"],
  ])("renders %s in %s as %s", (instant, timeZone, expected) => {
    expect(formatTimestamp({ instant: new Date(instant), timeZone })).toBe(expected);
  });
});

describe("formatTimestamp read from the formatted text", () => {
  const zones = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "America/St_Johns",
    "Asia/Kathmandu",
    "Australia/Lord_Howe",
    "Pacific/Apia",
    "Pacific/Chatham",
    "Africa/Monrovia",
    "Etc/GMT-14",
    "America/Sao_Paulo",
  ];

  it("renders exactly what formatToParts gives, in every zone, at any instant from year 1 to 9999", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }),
        fc.constantFrom(...zones),
        (ms, timeZone) => {
          const instant = new Date(ms);
          expect(formatTimestamp({ instant, timeZone })).toBe(
            formatTimestampFromParts({ instant, timeZone }),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("matches formatToParts through this decade, and at each second around its clock changes", () => {
    const changes = [
      "2026-03-29T01:00:00Z",
      "2026-10-25T01:00:00Z",
      "2026-03-08T07:00:00Z",
      "2026-11-01T06:00:00Z",
      "2026-04-05T15:00:00Z",
      "2026-10-04T15:30:00Z",
    ].map((text) => Date.parse(text));
    for (const timeZone of zones) {
      const instants: number[] = [];
      for (
        let ms = Date.UTC(2024, 0, 1);
        ms < Date.UTC(2030, 0, 1);
        ms += 5 * 3_600_000 + 1_033_000
      ) {
        instants.push(ms);
      }
      for (const change of changes) {
        for (let second = -90; second <= 90; second += 1) instants.push(change + second * 1000);
      }
      for (const ms of instants) {
        const instant = new Date(ms);
        const fast = formatTimestamp({ instant, timeZone });
        if (fast !== formatTimestampFromParts({ instant, timeZone })) {
          expect.fail(`${instant.toISOString()} in ${timeZone}: ${fast}`);
        }
      }
    }
  });

  it("falls back to formatToParts for a year before 1, which carries an era", () => {
    const instant = new Date(Date.UTC(0, 5, 1, 12));
    instant.setUTCFullYear(0);
    expect(formatTimestamp({ instant, timeZone: "UTC" })).toBe(
      formatTimestampFromParts({ instant, timeZone: "UTC" }),
    );
  });

  it("reads a quarter hour of one offset without ICU, and never one that holds a clock change", () => {
    // Liberia moved from UTC-00:44:30 to UTC at 00:44:30 UTC: mid-way through a quarter hour.
    const change = Date.parse("1972-01-07T00:44:30Z");
    const quarters = [Date.parse("1972-01-07T00:30:00Z"), Date.parse("1972-01-07T00:45:00Z")];
    const seconds: number[] = [];
    for (const start of quarters) {
      for (let second = 0; second < 900; second += 1) seconds.push(start + second * 1000);
    }
    // Forward, backward and forward again: every second once with the quarter hour known.
    for (const ms of [...seconds, ...[...seconds].reverse(), ...seconds]) {
      const instant = new Date(ms + (ms % 7) * 100);
      const fast = formatTimestamp({ instant, timeZone: "Africa/Monrovia" });
      if (fast !== formatTimestampFromParts({ instant, timeZone: "Africa/Monrovia" })) {
        expect.fail(`${instant.toISOString()}: ${fast}`);
      }
    }
    // Inside a steady quarter hour ICU is not asked again.
    // `format` is an accessor (it returns a bound function), not a plain method.
    const prototype = Intl.DateTimeFormat.prototype as unknown as { readonly format: unknown };
    const format = vi.spyOn(prototype, "format", "get");
    try {
      formatTimestamp({ instant: new Date(quarters[1]! + 60_000), timeZone: "Africa/Monrovia" });
      expect(format).not.toHaveBeenCalled();
      formatTimestamp({ instant: new Date(change - 1000), timeZone: "Africa/Monrovia" });
      expect(format).toHaveBeenCalled();
    } finally {
      format.mockRestore();
    }
    expect(formatTimestamp({ instant: new Date(change - 1000), timeZone: "Africa/Monrovia" })).toBe(
      "Thursday, 1972-01-06 23:59 UTC-00:44",
    );
    expect(formatTimestamp({ instant: new Date(change), timeZone: "Africa/Monrovia" })).toBe(
      "Friday, 1972-01-07 00:44 UTC+00:00",
    );
  });

  it("a conversation's turns minutes apart, in zones taking turns, match formatToParts", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.array(
          fc.record({
            stepMs: fc.integer({ min: -20 * 60_000, max: 20 * 60_000 }),
            timeZone: fc.constantFrom(...zones),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        (startMs, steps) => {
          let ms = startMs;
          for (const { stepMs, timeZone } of steps) {
            ms += stepMs;
            const instant = new Date(ms);
            expect(formatTimestamp({ instant, timeZone })).toBe(
              formatTimestampFromParts({ instant, timeZone }),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
