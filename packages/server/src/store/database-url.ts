/**
 * `CURSOR_GATEWAY_DATABASE_URL`: a PostgreSQL connection URL, e.g.
 * `postgresql://gateway:secret@db.internal:5432/gateway?sslmode=require`, or a unix socket as
 * `postgresql://gateway@/gateway?host=/var/run/postgresql`. Its password never appears in a
 * message: problems name the part that is wrong, and `databaseLabel` is what logs may show.
 */
export function checkDatabaseURL(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not a URL; expected postgresql://user:password@host:5432/database";
  }
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
    return `a postgresql:// (or postgres://) URL, not ${url.protocol}//`;
  }
  if (url.hostname === "" && !url.searchParams.has("host")) {
    return "names no host (a TCP host, or ?host=/path/to/socket-directory)";
  }
  if (url.pathname.length > 1 && url.pathname.slice(1).includes("/")) {
    return "the path must be the database name only";
  }
  if (url.hash !== "") return "must not have a #fragment";
  return undefined;
}

/** The URL without its password (nor its query string): what a log line may say. */
export function databaseLabel(value: string): string {
  try {
    const url = new URL(value);
    const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
    const socket = url.searchParams.get("host");
    const host =
      url.hostname === "" ? "" : `${url.hostname}${url.port === "" ? "" : `:${url.port}`}`;
    return `${url.protocol}//${user}${host}${url.pathname}${socket === null ? "" : ` (socket ${socket})`}`;
  } catch {
    return "(an invalid database URL)";
  }
}

/** The URL's password (decoded), "" when it has none: a value never to show anywhere. */
export function databasePassword(value: string): string {
  try {
    return decodeURIComponent(new URL(value).password);
  } catch {
    return "";
  }
}
