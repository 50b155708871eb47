/** A value that changes by itself between requests (a clock, an id) found where two texts differ. */
export interface VolatileValue {
  readonly kind: string;
  /** The value in the earlier text, if it has one there. */
  readonly before?: string;
  /** The value in the later text, if it has one there. */
  readonly after?: string;
}

// Most specific first: a timestamp also contains a date and a time.
const patterns: readonly { kind: string; pattern: RegExp }[] = [
  {
    kind: "timestamp",
    pattern:
      /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?: \([^)]{1,40}\))?/g,
  },
  {
    kind: "UUID",
    pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  },
  { kind: "date", pattern: /\b\d{4}-\d{2}-\d{2}\b/g },
  {
    kind: "date",
    pattern:
      /\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? (?:\d{1,2} )?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b/g,
  },
  { kind: "time", pattern: /\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AP]M)?\b/g },
  { kind: "Unix time", pattern: /\b1[5-9]\d{8}(?:\d{3})?\b/g },
  { kind: "random id", pattern: /\b[0-9a-f]{16,}\b/gi },
  {
    kind: "random id",
    pattern: /\b(?:req|msg|resp|call|run|toolu|chatcmpl)[_-][A-Za-z0-9]{8,}\b/g,
  },
];

/** Start and end of the part of `text` that differs from the other text (after common ends). */
function changedRange(
  text: string,
  prefix: number,
  suffix: number,
): { start: number; end: number } {
  return { start: prefix, end: Math.max(prefix, text.length - suffix) };
}

function commonEnds(a: string, b: string): { prefix: number; suffix: number } {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix += 1;
  }
  return { prefix, suffix };
}

/** The first match of `pattern` overlapping [start, end] (touching counts: "10:4|1" → 10:41). */
function matchIn(text: string, pattern: RegExp, range: { start: number; end: number }) {
  for (const match of text.matchAll(pattern)) {
    const from = match.index;
    const to = from + match[0].length;
    if (from <= range.end && to >= range.start) return match[0];
  }
  return undefined;
}

/**
 * The volatile value (timestamp, date, time, UUID, Unix time, random id) that sits where
 * `before` and `after` differ, if any: the usual reason a prompt that should be stable is not.
 */
export function findVolatileValue(before: string, after: string): VolatileValue | undefined {
  if (before === after) return undefined;
  const { prefix, suffix } = commonEnds(before, after);
  const rangeBefore = changedRange(before, prefix, suffix);
  const rangeAfter = changedRange(after, prefix, suffix);
  for (const { kind, pattern } of patterns) {
    const valueBefore = matchIn(before, pattern, rangeBefore);
    const valueAfter = matchIn(after, pattern, rangeAfter);
    if (valueBefore === undefined && valueAfter === undefined) continue;
    if (valueBefore === valueAfter) continue;
    return {
      kind,
      ...(valueBefore === undefined ? {} : { before: valueBefore }),
      ...(valueAfter === undefined ? {} : { after: valueAfter }),
    };
  }
  return undefined;
}
