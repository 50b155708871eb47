import { describe, expect, it } from "vitest";
import {
  addedRatioText,
  signedMilliseconds,
  bytes,
  count,
  dollars,
  markdownTable,
  milliseconds,
  percent,
  ratio,
  tokens,
} from "./format.js";

describe("report number formats", () => {
  it("formats each kind of figure", () => {
    expect(percent(0.98612)).toBe("98.6%");
    expect(percent(Number.NaN)).toBe("–");
    expect(bytes(950)).toBe("950 B");
    expect(bytes(4_630)).toBe("4.6 kB");
    expect(bytes(25_818_894)).toBe("25.8 MB");
    expect(milliseconds(0)).toBe("0 ms");
    expect(milliseconds(0.2721)).toBe("0.27 ms");
    expect(milliseconds(5.38)).toBe("5.4 ms");
    expect(milliseconds(273.1)).toBe("273 ms");
    expect(tokens(9_999)).toBe("9999");
    expect(tokens(841_900)).toBe("841.9 k");
    expect(tokens(4_220_000)).toBe("4.22 M");
    expect(ratio(1.234)).toBe("1.23×");
    expect(addedRatioText(2.345)).toBe("2.35×");
    expect(addedRatioText(-0.88)).toBe("≤ 0");
    expect(addedRatioText(Number.NaN)).toBe("–");
    expect(dollars(0.714)).toBe("$0.71");
    expect(count(1_000_000)).toBe("1 000 000");
  });

  it("writes Markdown tables with escaped cells and aligned columns", () => {
    expect(markdownTable({ header: ["a", "b"], rows: [["x|y", "1"]] })).toBe(
      "| a | b |\n| :-- | --: |\n| x\\|y | 1 |",
    );
  });
});

describe("signedMilliseconds", () => {
  it("signs an added time either way, with the precision of its size", () => {
    expect(signedMilliseconds(3.24)).toBe("+3.2 ms");
    expect(signedMilliseconds(-342.25)).toBe("−342 ms");
    expect(signedMilliseconds(-0.5)).toBe("−0.50 ms");
    expect(signedMilliseconds(Number.NaN)).toBe("–");
  });
});
