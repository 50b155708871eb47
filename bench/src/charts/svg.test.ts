import { describe, expect, it } from "vitest";
import { escapeXml, legend, niceTicks, textElement } from "./svg.js";

describe("svg helpers", () => {
  it("escapes text for XML", () => {
    expect(escapeXml(`a < b & "c" > d`)).toBe("a &lt; b &amp; &quot;c&quot; &gt; d");
    expect(textElement({ x: 1.234, y: 2, text: "Σ <x>" })).toBe(
      '<text x="1.2" y="2" font-size="12" text-anchor="start" fill="#222">Σ &lt;x&gt;</text>',
    );
  });

  it("picks nice ticks that reach the maximum", () => {
    expect(niceTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.85)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(340)).toEqual([0, 100, 200, 300, 400]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });

  it("wraps legend entries into rows", () => {
    const entries = ["first series", "second series", "third series"].map((label) => ({
      label,
      color: "#000",
    }));
    expect(legend({ x: 0, y: 10, entries, maxWidth: 1000 }).height).toBe(16);
    expect(legend({ x: 0, y: 10, entries, maxWidth: 150 }).height).toBe(48);
  });
});
