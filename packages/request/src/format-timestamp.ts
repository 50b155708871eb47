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

function wallClock(timeZone: string, instant: Date): WallClock {
  readText ??= textOrderHolds();
  const formatter = formatterFor(timeZone);
  return (
    (readText ? wallClockFromText(formatter, instant) : undefined) ??
    wallClockFromParts(formatter, instant)
  );
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
  const { year, month, day, hour, minute, second } = clock;
  // The offset is the local wall clock read as UTC minus the instant (setUTCFullYear, unlike
  // Date.UTC, keeps years below 100 as they are).
  const wallClock = new Date(0);
  wallClock.setUTCFullYear(year, month - 1, day);
  wallClock.setUTCHours(hour, minute, second, 0);
  const wholeSeconds = Math.floor(instant.getTime() / 1000) * 1000;
  const offsetMinutes = Math.round((wallClock.getTime() - wholeSeconds) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = `UTC${sign}${pad(Math.floor(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`;
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  return `${clock.weekday}, ${date} ${pad(hour)}:${pad(minute)} ${offset}`;
}
