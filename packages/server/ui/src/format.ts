const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export const tokens = (value: number) => integer.format(value);
export const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? "–" : `${(100 * value).toFixed(1)}%`;
export const milliseconds = (value: number | null | undefined) =>
  value === null || value === undefined
    ? "–"
    : value < 10
      ? `${value.toFixed(1)} ms`
      : `${integer.format(value)} ms`;

/** Dollars with enough digits to show a single call's cost. */
export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : 4;
  return `${value < 0 ? "−" : ""}$${Math.abs(value).toFixed(digits)}`;
}

/** `2026-11-29 10:01:02` in UTC (the gateway's records are UTC). */
export function dateTime(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return "–";
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}
