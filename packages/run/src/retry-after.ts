/** Anything with a `get(name)` for response headers (fetch `Headers`, SDK error headers). */
export interface HeaderSource {
  get(name: string): string | null | undefined;
}

/**
 * Milliseconds a provider asked us to wait: `retry-after-ms` (OpenAI's precise form) wins over
 * `retry-after`, which is seconds or an HTTP date (measured against `now`). Rounded up, so a
 * retry never comes early. Undefined when absent or unparsable.
 */
export function parseRetryAfterMs({
  headers,
  now = Date.now,
}: {
  headers: HeaderSource | undefined;
  now?: () => number;
}): number | undefined {
  const precise = headers?.get("retry-after-ms")?.trim();
  if (precise !== undefined && precise !== "" && precise !== null) {
    const milliseconds = Number(precise);
    if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.ceil(milliseconds);
  }
  const value = headers?.get("retry-after")?.trim();
  if (value === undefined || value === null || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
