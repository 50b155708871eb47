import { describe, expect, it } from "vitest";
import { formatTimestamp } from "./format-timestamp.js";

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
