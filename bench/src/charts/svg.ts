// Minimal SVG building blocks for the report's charts: plain strings, fixed number formatting,
// so the same data always renders the same bytes (the committed charts diff cleanly).

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Coordinates with at most one decimal: enough for a screen, stable across platforms. */
export const coordinate = (value: number): string => String(Math.round(value * 10) / 10);

export function textElement({
  x,
  y,
  text,
  anchor = "start",
  size = 12,
  weight,
  fill = "#222",
  rotate,
}: {
  x: number;
  y: number;
  text: string;
  anchor?: "start" | "middle" | "end";
  size?: number;
  weight?: "bold";
  fill?: string;
  rotate?: number;
}): string {
  const transform =
    rotate === undefined ? "" : ` transform="rotate(${rotate} ${coordinate(x)} ${coordinate(y)})"`;
  return `<text x="${coordinate(x)}" y="${coordinate(y)}" font-size="${size}" text-anchor="${anchor}" fill="${fill}"${weight === undefined ? "" : ` font-weight="${weight}"`}${transform}>${escapeXml(text)}</text>`;
}

export function lineElement({
  x1,
  y1,
  x2,
  y2,
  stroke = "#999",
  width = 1,
  dash,
}: {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  stroke?: string;
  width?: number;
  dash?: string;
}): string {
  return `<line x1="${coordinate(x1)}" y1="${coordinate(y1)}" x2="${coordinate(x2)}" y2="${coordinate(y2)}" stroke="${stroke}" stroke-width="${width}"${dash === undefined ? "" : ` stroke-dasharray="${dash}"`}/>`;
}

export function rectElement({
  x,
  y,
  width,
  height,
  fill,
  title,
}: {
  x: number;
  y: number;
  width: number;
  height: number;
  fill: string;
  title?: string;
}): string {
  const tooltip = title === undefined ? "" : `<title>${escapeXml(title)}</title>`;
  return `<rect x="${coordinate(x)}" y="${coordinate(y)}" width="${coordinate(Math.max(0, width))}" height="${coordinate(Math.max(0, height))}" fill="${fill}">${tooltip}</rect>`;
}

/** Wraps chart elements in an `<svg>` document with a white background and a title. */
export function svgDocument({
  width,
  height,
  title,
  body,
}: {
  width: number;
  height: number;
  title: string;
  body: readonly string[];
}): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" role="img" aria-label="${escapeXml(title)}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#fff"/>`,
    textElement({ x: width / 2, y: 22, text: title, anchor: "middle", size: 15, weight: "bold" }),
    ...body,
    "</svg>",
    "",
  ].join("\n");
}

/** Colour-blind-friendly series colours (Okabe–Ito). */
export const palette = [
  "#0072B2",
  "#E69F00",
  "#009E73",
  "#D55E00",
  "#CC79A7",
  "#56B4E9",
  "#F0E442",
  "#000000",
];

/** "Nice" axis ticks from 0 to at least `max`: 1, 2 or 5 × 10^k steps. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step / 2; tick += step) ticks.push(Number(tick.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks.length * step).toPrecision(12)));
  return ticks;
}

const legendRowHeight = 16;

/** Legend entries from (x, y), wrapped into rows at `maxWidth`; returns the rows used. */
export function legend({
  x,
  y,
  entries,
  maxWidth,
}: {
  x: number;
  y: number;
  entries: readonly { label: string; color: string; dashed?: boolean }[];
  maxWidth: number;
}): { elements: string[]; height: number } {
  const elements: string[] = [];
  let cursor = x;
  let row = 0;
  for (const entry of entries) {
    const entryWidth = 30 + entry.label.length * 6.2;
    if (cursor > x && cursor + entryWidth > x + maxWidth) {
      row += 1;
      cursor = x;
    }
    const rowY = y + row * legendRowHeight;
    elements.push(
      entry.dashed
        ? lineElement({
            x1: cursor,
            y1: rowY - 4,
            x2: cursor + 14,
            y2: rowY - 4,
            stroke: entry.color,
            width: 2,
            dash: "4 3",
          })
        : rectElement({ x: cursor, y: rowY - 10, width: 12, height: 12, fill: entry.color }),
    );
    elements.push(textElement({ x: cursor + 18, y: rowY, text: entry.label, size: 11 }));
    cursor += entryWidth;
  }
  return { elements, height: (row + 1) * legendRowHeight };
}
