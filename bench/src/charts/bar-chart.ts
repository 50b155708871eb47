import {
  coordinate,
  legend,
  lineElement,
  niceTicks,
  palette,
  rectElement,
  svgDocument,
  textElement,
} from "./svg.js";

export interface BarChartInput {
  readonly title: string;
  /** One group of bars per entry (e.g. a provider). */
  readonly groups: readonly string[];
  /** One bar per series in every group; `values[g]` is the bar in group g (null: none). */
  readonly series: readonly {
    readonly label: string;
    readonly values: readonly (number | null)[];
  }[];
  readonly format: (value: number) => string;
  /** Axis tick labels; default `format`. */
  readonly tickFormat?: (value: number) => string;
  readonly axisLabel: string;
  /** Axis maximum; default: the largest value, rounded up to a nice tick. */
  readonly max?: number;
  /** A vertical reference line (e.g. the physical limit) with its label. */
  readonly reference?: { readonly value: number; readonly label: string };
  readonly width?: number;
}

const barHeight = 16;
const barGap = 4;
const groupGap = 18;

/** Horizontal grouped bars with value labels: one group per entry of `groups`. */
export function renderBarChart(input: BarChartInput): string {
  // Group labels are bold 12 px: about 7.5 px per character.
  const labelWidth = Math.max(120, Math.ceil(Math.max(...input.groups.map((g) => g.length)) * 7.5));
  const width = (input.width ?? 760) + Math.max(0, labelWidth - 170);
  const plotLeft = labelWidth + 10;
  const plotRight = width - 70;
  const key = legend({
    x: plotLeft,
    y: 44,
    entries: input.series.map((s, i) => ({ label: s.label, color: palette[i % palette.length]! })),
    maxWidth: width - plotLeft - 10,
  });
  const top = 44 + key.height + 6;
  const groupHeight = input.series.length * (barHeight + barGap) - barGap;
  const plotHeight = input.groups.length * (groupHeight + groupGap) - groupGap;
  const height = top + plotHeight + 56;
  const values = input.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const ticks = niceTicks(input.max ?? Math.max(...values, input.reference?.value ?? 0));
  const axisMax = ticks[ticks.length - 1]!;
  const x = (value: number) => plotLeft + ((plotRight - plotLeft) * value) / axisMax;
  const body: string[] = [...key.elements];
  for (const tick of ticks) {
    body.push(
      lineElement({
        x1: x(tick),
        y1: top - 4,
        x2: x(tick),
        y2: top + plotHeight,
        stroke: "#e5e5e5",
      }),
      textElement({
        x: x(tick),
        y: top + plotHeight + 16,
        text: (input.tickFormat ?? input.format)(tick),
        anchor: "middle",
        size: 11,
        fill: "#555",
      }),
    );
  }
  input.groups.forEach((group, g) => {
    const groupTop = top + g * (groupHeight + groupGap);
    body.push(
      textElement({
        x: labelWidth,
        y: groupTop + groupHeight / 2 + 4,
        text: group,
        anchor: "end",
        size: 12,
        weight: "bold",
      }),
    );
    input.series.forEach((series, s) => {
      const value = series.values[g];
      if (value === null || value === undefined) return;
      const y = groupTop + s * (barHeight + barGap);
      body.push(
        rectElement({
          x: plotLeft,
          y,
          width: x(value) - plotLeft,
          height: barHeight,
          fill: palette[s % palette.length]!,
          title: `${group} — ${series.label}: ${input.format(value)}`,
        }),
        textElement({ x: x(value) + 4, y: y + barHeight - 4, text: input.format(value), size: 11 }),
      );
    });
  });
  if (input.reference !== undefined) {
    const rx = x(input.reference.value);
    body.push(
      lineElement({
        x1: rx,
        y1: top - 6,
        x2: rx,
        y2: top + plotHeight + 2,
        stroke: "#222",
        dash: "5 3",
      }),
      textElement({
        x: rx,
        y: top + plotHeight + 30,
        text: input.reference.label,
        anchor: "middle",
        size: 11,
      }),
    );
  }
  body.push(
    lineElement({ x1: plotLeft, y1: top - 4, x2: plotLeft, y2: top + plotHeight, stroke: "#444" }),
    textElement({
      x: (plotLeft + plotRight) / 2,
      y: height - 8,
      text: input.axisLabel,
      anchor: "middle",
      size: 12,
      fill: "#444",
    }),
  );
  return svgDocument({ width, height: Number(coordinate(height)), title: input.title, body });
}
