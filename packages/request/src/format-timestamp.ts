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
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  const year = Number(parts.year);
  const month = Number(parts.month);
  const day = Number(parts.day);
  const hour = Number(parts.hour);
  const minute = Number(parts.minute);
  const second = Number(parts.second);
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
  return `${parts.weekday}, ${date} ${pad(hour)}:${pad(minute)} ${offset}`;
}
