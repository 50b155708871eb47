import {
  coordinate,
  legend,
  lineElement,
  niceTicks,
  palette,
  svgDocument,
  textElement,
} from "./svg.js";

interface LineSeries {
  readonly label: string;
  /** y per x of `LineChartInput.x` (null: no point). */
  readonly values: readonly (number | null)[];
  readonly dashed?: boolean;
  /** Draw a dot on every point (for short series). */
  readonly markers?: boolean;
}

export interface LineChartInput {
  readonly title: string;
  readonly x: readonly number[];
  readonly xScale: "linear" | "log";
  /** Tick positions on the x axis with their labels. */
  readonly xTicks: readonly { readonly value: number; readonly label: string }[];
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly LineSeries[];
  readonly format: (value: number) => string;
  readonly yMax?: number;
  /** Horizontal reference lines (a target, a limit). */
  readonly references?: readonly { readonly value: number; readonly label: string }[];
  readonly width?: number;
  readonly height?: number;
}

/** Lines over a numeric x axis (linear or log), y from 0. */
export function renderLineChart(input: LineChartInput): string {
  const width = input.width ?? 760;
  const height = input.height ?? 380;
  const left = 78;
  const right = width - 24;
  const key = legend({
    x: 78,
    y: 44,
    entries: input.series.map((s, i) => ({
      label: s.label,
      color: palette[i % palette.length]!,
      ...(s.dashed ? { dashed: true } : {}),
    })),
    maxWidth: width - 78 - 24,
  });
  const top = 44 + key.height + 8;
  const bottom = height - 52;
  const scaleX = (value: number) => (input.xScale === "log" ? Math.log10(value) : value);
  const xs = input.x.map(scaleX);
  const xMin = Math.min(...xs, ...input.xTicks.map((t) => scaleX(t.value)));
  const xMax = Math.max(...xs, ...input.xTicks.map((t) => scaleX(t.value)));
  const span = xMax - xMin || 1;
  const px = (value: number) => left + ((right - left) * (scaleX(value) - xMin)) / span;
  const values = input.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const ticks = niceTicks(
    input.yMax ?? Math.max(...values, ...(input.references ?? []).map((r) => r.value)),
  );
  const yMax = ticks[ticks.length - 1]!;
  const py = (value: number) => bottom - ((bottom - top) * value) / yMax;
  const body: string[] = [...key.elements];
  for (const tick of ticks) {
    body.push(
      lineElement({ x1: left, y1: py(tick), x2: right, y2: py(tick), stroke: "#e5e5e5" }),
      textElement({
        x: left - 6,
        y: py(tick) + 4,
        text: input.format(tick),
        anchor: "end",
        size: 11,
        fill: "#555",
      }),
    );
  }
  for (const tick of input.xTicks) {
    body.push(
      lineElement({
        x1: px(tick.value),
        y1: bottom,
        x2: px(tick.value),
        y2: bottom + 4,
        stroke: "#444",
      }),
      textElement({
        x: px(tick.value),
        y: bottom + 17,
        text: tick.label,
        anchor: "middle",
        size: 11,
        fill: "#555",
      }),
    );
  }
  for (const reference of input.references ?? []) {
    body.push(
      lineElement({
        x1: left,
        y1: py(reference.value),
        x2: right,
        y2: py(reference.value),
        stroke: "#222",
        dash: "5 3",
      }),
      textElement({
        x: right - 4,
        y: py(reference.value) - 5,
        text: reference.label,
        anchor: "end",
        size: 11,
      }),
    );
  }
  input.series.forEach((series, s) => {
    const color = palette[s % palette.length]!;
    const points: string[] = [];
    series.values.forEach((value, i) => {
      if (value === null) return;
      points.push(`${coordinate(px(input.x[i]!))},${coordinate(py(value))}`);
    });
    body.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2"${series.dashed ? ' stroke-dasharray="6 4"' : ""} points="${points.join(" ")}"/>`,
    );
    if (series.markers) {
      for (const point of points) {
        const [cx, cy] = point.split(",");
        body.push(`<circle cx="${cx}" cy="${cy}" r="3.5" fill="${color}"/>`);
      }
    }
  });
  body.push(
    lineElement({ x1: left, y1: top, x2: left, y2: bottom, stroke: "#444" }),
    lineElement({ x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#444" }),
    textElement({
      x: (left + right) / 2,
      y: height - 10,
      text: input.xLabel,
      anchor: "middle",
      size: 12,
      fill: "#444",
    }),
    textElement({
      x: 16,
      y: (top + bottom) / 2,
      text: input.yLabel,
      anchor: "middle",
      size: 12,
      fill: "#444",
      rotate: -90,
    }),
  );
  return svgDocument({ width, height, title: input.title, body });
}
