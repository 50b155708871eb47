import { describe, expect, it } from "vitest";
import { renderLineChart } from "./line-chart.js";

describe("renderLineChart", () => {
  const input = {
    title: "Ratio",
    x: [10, 100, 1000],
    xScale: "log" as const,
    xTicks: [
      { value: 10, label: "10" },
      { value: 1000, label: "1,000" },
    ],
    xLabel: "turns",
    yLabel: "ratio",
    series: [
      { label: "a", values: [1, 2, 3], markers: true },
      { label: "b", values: [1, null, 1], dashed: true },
    ],
    format: (value: number) => value.toFixed(1),
    references: [{ value: 1.5, label: "target" }],
  };

  it("spaces a log axis by decades", () => {
    const svg = renderLineChart(input);
    const points = /<polyline[^>]*points="([^"]+)"/.exec(svg)![1]!.split(" ");
    const xs = points.map((point) => Number(point.split(",")[0]));
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 0);
  });

  it("skips missing points, dashes and marks series as asked", () => {
    const svg = renderLineChart(input);
    const polylines = [...svg.matchAll(/<polyline[^>]*points="([^"]+)"/g)];
    expect(polylines[1]![1]!.split(" ")).toHaveLength(2);
    expect(svg).toContain('stroke-dasharray="6 4"');
    expect([...svg.matchAll(/<circle /g)]).toHaveLength(3);
    expect(svg).toContain(">target</text>");
  });

  it("is deterministic", () => {
    expect(renderLineChart(input)).toBe(renderLineChart(input));
  });
});
