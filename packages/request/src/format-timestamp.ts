const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // Only numeric parts and English weekday names are read from it: they do not vary between
    // ICU versions the way localised date strings do.
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "long",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function pad(value: number, length = 2): string {
  return String(value).padStart(length, "0");
}

interface WallClock {
  readonly weekday: string;
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function wallClockFromParts(formatter: Intl.DateTimeFormat, instant: Date): WallClock {
  const parts = Object.fromEntries(
    formatter.formatToParts(instant).map((part) => [part.type, part.value]),
  );
  return {
    weekday: String(parts.weekday),
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

// `format` is four times cheaper than `formatToParts` (no part objects): its text, e.g.
// "Sunday, 03/29/2026, 01:59:59", is read as a weekday and six numbers whatever the separators,
// in the order checked below against `formatToParts`. Anything else (a year before 1, which
// carries an era) falls back to the parts.
const formattedText =
  /^(\p{L}+)\P{Nd}+(\d+)\P{Nd}+(\d+)\P{Nd}+(\d+)\P{Nd}+(\d+)\P{Nd}+(\d+)\P{Nd}+(\d+)$/u;

function wallClockFromText(formatter: Intl.DateTimeFormat, instant: Date): WallClock | undefined {
  const match = formattedText.exec(formatter.format(instant));
  if (match === null) return undefined;
  const [, weekday, month, day, year, hour, minute, second] = match;
  return {
    weekday: weekday!,
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
}

/** Does this runtime's ICU write en-US dates in the order `wallClockFromText` reads? */
function textOrderHolds(): boolean {
  const probe = new Date(Date.UTC(2001, 1, 3, 4, 5, 6));
  const formatter = formatterFor("UTC");
  const text = wallClockFromText(formatter, probe);
  const parts = wallClockFromParts(formatter, probe);
  return (
    text !== undefined &&
    (Object.keys(parts) as (keyof WallClock)[]).every((key) => text[key] === parts[key])
  );
}

let readText: boolean | undefined;

/** The wall clock read from the formatter's text; undefined where that reading does not hold. */
function textWallClock(timeZone: string, instant: Date): WallClock | undefined {
  readText ??= textOrderHolds();
  return readText ? wallClockFromText(formatterFor(timeZone), instant) : undefined;
}

const quarterHourMs = 15 * 60_000;
const weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/**
 * Per time zone, the last quarter hour (UTC) found to have one offset from its first second to
 * its last: every user turn formats its timestamp, a conversation's turns come minutes apart,
 * and a zone's offset changes a few times a year. Inside that quarter hour the wall clock is the
 * instant plus the offset, without asking ICU (a cold `format` call costs tens of microseconds).
 * A quarter hour holding a change (its ends differ) is never kept; no zone changes its offset
 * twice within a quarter hour.
 */
const steadyQuarters = new Map<string, { readonly start: number; readonly offsetMs: number }>();

function wallClock(timeZone: string, instant: Date): WallClock {
  const ms = instant.getTime();
  const start = Math.floor(ms / quarterHourMs) * quarterHourMs;
  const steady = steadyQuarters.get(timeZone);
  if (steady?.start === start) return shiftedWallClock(ms, steady.offsetMs);
  const clock = textWallClock(timeZone, instant);
  if (clock === undefined) return wallClockFromParts(formatterFor(timeZone), instant);
  const offsetMs = offsetOf(ms, clock);
  const first = textWallClock(timeZone, new Date(start));
  const last = textWallClock(timeZone, new Date(start + quarterHourMs - 1000));
  if (
    first !== undefined &&
    last !== undefined &&
    offsetOf(start, first) === offsetMs &&
    offsetOf(start + quarterHourMs - 1000, last) === offsetMs
  ) {
    steadyQuarters.set(timeZone, { start, offsetMs });
  }
  return clock;
}

/** The wall clock read as UTC, minus the instant (to the second the clock shows). */
function offsetOf(ms: number, clock: WallClock): number {
  const wall = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years below 100 as they are.
  wall.setUTCFullYear(clock.year, clock.month - 1, clock.day);
  wall.setUTCHours(clock.hour, clock.minute, clock.second, 0);
  return wall.getTime() - Math.floor(ms / 1000) * 1000;
}

function shiftedWallClock(ms: number, offsetMs: number): WallClock {
  const wall = new Date(Math.floor(ms / 1000) * 1000 + offsetMs);
  return {
    weekday: weekdays[wall.getUTCDay()]!,
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

/**
 * Renders an instant in a time zone, e.g. `Sunday, 2026-11-29 10:00 UTC+01:00`: the wall-clock
 * time the user sees and the zone's offset at that instant. The zone's name is left out: it is
 * environment, which belongs to the request context (where it is listed).
 */
export function formatTimestamp({
  instant,
  timeZone,
}: {
  instant: Date;
  timeZone: string;
}): string {
  return renderWallClock(instant, wallClock(timeZone, instant));
}

/** `formatTimestamp` read from `formatToParts` only: the reference its faster reading must match. */
export function formatTimestampFromParts({
  instant,
  timeZone,
}: {
  instant: Date;
  timeZone: string;
}): string {
  return renderWallClock(instant, wallClockFromParts(formatterFor(timeZone), instant));
}

function renderWallClock(instant: Date, clock: WallClock): string {
  const { year, month, day, hour, minute } = clock;
  const offsetMinutes = Math.round(offsetOf(instant.getTime(), clock) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = `UTC${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  return `${clock.weekday}, ${date} ${pad(hour)}:${pad(minute)} ${offset}`;
}
