import { describe, expect, it } from "vitest";
import { findVolatileValue } from "./volatile-values.js";

describe("findVolatileValue", () => {
  it("finds the clock or id where two texts differ", () => {
    expect(findVolatileValue("at 2026-11-29T10:41:00Z ok", "at 2026-11-29T10:42:00Z ok")).toEqual({
      kind: "timestamp",
      before: "2026-11-29T10:41:00Z",
      after: "2026-11-29T10:42:00Z",
    });
    expect(findVolatileValue("Date: Nov 29, 2026", "Date: Nov 30, 2026")).toMatchObject({
      kind: "date",
    });
    expect(
      findVolatileValue(
        "request 0b6c1d52-2d4f-4a52-9a0e-5f1b2c3d4e5f",
        "request 7f0e2a11-9c3b-4d8e-8f7a-6b5c4d3e2f1a",
      ),
    ).toMatchObject({ kind: "UUID" });
    expect(findVolatileValue("ts=1764409260", "ts=1764409320")).toMatchObject({
      kind: "Unix time",
    });
  });

  it("ignores clocks that did not change and edits without one", () => {
    expect(findVolatileValue("10:41 a", "10:41 b")).toBeUndefined();
    expect(findVolatileValue("use classes", "use functions")).toBeUndefined();
  });
});
