/**
 * A readable diff of two texts for a terminal: the common leading and trailing lines are
 * trimmed (prefix breaks are usually one edit, not many), a few lines of context are kept, long
 * lines are cut to a window around their first difference, and long runs are elided.
 */
export function textDiff(
  before: string,
  after: string,
  {
    context = 2,
    maxLines = 12,
    width = 160,
  }: { context?: number; maxLines?: number; width?: number } = {},
): string[] {
  if (before === after) return ["  (identical)"];
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const removed = a.slice(start, endA);
  const added = b.slice(start, endB);
  // One changed line on each side: cut both to the same window around the first difference.
  const column =
    removed.length === 1 && added.length === 1 ? firstDifference(removed[0]!, added[0]!) : 0;
  const show = (line: string) => clip(line, column, width);
  const lines = [`  @@ line ${start + 1} @@`];
  for (const line of a.slice(Math.max(0, start - context), start)) lines.push(`   ${show(line)}`);
  lines.push(
    ...limited(removed, maxLines).map((line) => (line === null ? "  …" : `  -${show(line)}`)),
  );
  lines.push(
    ...limited(added, maxLines).map((line) => (line === null ? "  …" : `  +${show(line)}`)),
  );
  for (const line of a.slice(endA, endA + context)) lines.push(`   ${show(line)}`);
  if (removed.length > maxLines || added.length > maxLines) {
    lines.push(`  (${removed.length} line(s) removed, ${added.length} added)`);
  }
  return lines;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

/** The first `max` entries, with null standing for the elided rest. */
function limited(lines: readonly string[], max: number): (string | null)[] {
  return lines.length <= max ? [...lines] : [...lines.slice(0, max), null];
}

/** `line` cut to `width` characters around `column`, with ellipses where it was cut. */
export function clip(line: string, column: number, width: number): string {
  if (line.length <= width) return line;
  const start = Math.max(0, Math.min(column - Math.floor(width / 3), line.length - width));
  const end = start + width;
  return `${start > 0 ? "…" : ""}${line.slice(start, end)}${end < line.length ? "…" : ""}`;
}
