import { describe, expect, it } from "vitest";
import { renderBarChart } from "./bar-chart.js";

describe("renderBarChart", () => {
  const svg = renderBarChart({
    title: "Efficiency & cost",
    groups: ["OpenAI", "Anthropic"],
    series: [
      { label: "ours", values: [1, 0.5] },
      { label: "naive", values: [0.25, null] },
    ],
    format: (value) => `${value * 100}%`,
    axisLabel: "share",
    max: 1,
    reference: { value: 1, label: "limit" },
  });

  it("draws one bar per value, proportional to it, with its label", () => {
    const widths = [
      ...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="16"/g),
    ].map((m) => Number(m[1]));
    expect(widths).toHaveLength(3);
    expect(widths[1]! / widths[0]!).toBeCloseTo(0.25, 2);
    expect(widths[2]! / widths[0]!).toBeCloseTo(0.5, 2);
    expect(svg).toContain("<title>OpenAI — naive: 25%</title>");
    expect(svg).not.toContain("Anthropic — naive");
  });

  it("escapes the title and draws the reference line", () => {
    expect(svg).toContain('aria-label="Efficiency &amp; cost"');
    expect(svg).toContain(">limit</text>");
    expect(svg).toContain('stroke-dasharray="5 3"');
  });
});
