// Number formats of the report: fixed rules so a rerun on the same data writes the same text.

export function percent(ratio: number, digits = 1): string {
  return Number.isFinite(ratio) ? `${(ratio * 100).toFixed(digits)}%` : "–";
}

export function bytes(value: number): string {
  if (!Number.isFinite(value)) return "–";
  if (value < 1_000) return `${Math.round(value)} B`;
  if (value < 1_000_000) return `${(value / 1_000).toFixed(1)} kB`;
  return `${(value / 1_000_000).toFixed(1)} MB`;
}

export function milliseconds(value: number): string {
  if (!Number.isFinite(value)) return "–";
  if (value === 0) return "0 ms";
  const size = Math.abs(value);
  if (size < 1) return `${value.toFixed(2)} ms`;
  if (size < 10) return `${value.toFixed(1)} ms`;
  return `${Math.round(value)} ms`;
}

/** An added (paired) time with its sign: `+3.2 ms`, or `−1.8 ms` when noise made it negative. */
export function signedMilliseconds(value: number): string {
  if (!Number.isFinite(value)) return "–";
  return value < 0 ? `−${milliseconds(-value)}` : `+${milliseconds(value)}`;
}

export function tokens(value: number): string {
  if (!Number.isFinite(value)) return "–";
  if (value < 10_000) return String(Math.round(value));
  if (value < 1_000_000) return `${(value / 1_000).toFixed(1)} k`;
  return `${(value / 1_000_000).toFixed(2)} M`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : "–";
}

/**
 * A gateway-added ÷ proxy-added ratio: "–" when there is none (the proxy added nothing
 * measurable), "≤ 0" when the gateway added nothing measurable (noise made its paired p50 ≤ 0),
 * rather than a negative ratio that reads like a figure.
 */
export function addedRatioText(value: number): string {
  if (!Number.isFinite(value)) return "–";
  return value <= 0 ? "≤ 0" : `${value.toFixed(2)}×`;
}

export function dollars(value: number): string {
  return Number.isFinite(value) ? `$${value.toFixed(2)}` : "–";
}

/** Thousands with thin grouping: 1 000 000. */
export function count(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, " ");
}

/** A Markdown table; cells are escaped for pipes. */
export function markdownTable({
  header,
  rows,
  align,
}: {
  header: readonly string[];
  rows: readonly (readonly string[])[];
  /** Per column: "l" or "r" (default: first column left, the rest right). */
  align?: readonly ("l" | "r")[];
}): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  const alignment = header.map((_, i) => align?.[i] ?? (i === 0 ? "l" : "r"));
  return [
    `| ${header.map(cell).join(" | ")} |`,
    `| ${alignment.map((a) => (a === "l" ? ":--" : "--:")).join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n");
}
