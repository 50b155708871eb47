import { describe, expect, it } from "vitest";
import { addedRatio } from "./gateway-overhead.js";

describe("addedRatio", () => {
  it("divides the gateway's added time by the proxy's, and has none when the proxy added nothing", () => {
    expect(addedRatio(6, 3)).toBe(2);
    expect(addedRatio(6, 0)).toBeNaN();
    expect(addedRatio(6, -1.5)).toBeNaN();
  });
});
