/**
 * `CURSOR_GATEWAY_DATABASE_URL`: a PostgreSQL connection URL, e.g.
 * `postgresql://gateway:secret@db.internal:5432/gateway?sslmode=require`, or a unix socket as
 * `postgresql://gateway@/gateway?host=/var/run/postgresql`. Its password never appears in a
 * message: problems name the part that is wrong, and `databaseLabel` is what logs may show.
 */
export function checkDatabaseURL(value: string): string | undefined {
  const parsed = parseDatabaseURL(value);
  if (parsed === undefined) {
    return "not a URL; expected postgresql://user:password@host:5432/database";
  }
  const { url, hostname } = parsed;
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
    return `a postgresql:// (or postgres://) URL, not ${url.protocol}//`;
  }
  if (hostname === "" && !url.searchParams.has("host")) {
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
  const parsed = parseDatabaseURL(value);
  if (parsed === undefined) return "(an invalid database URL)";
  const { url, hostname } = parsed;
  const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`;
  const socket = url.searchParams.get("host");
  const host = hostname === "" ? "" : `${hostname}${url.port === "" ? "" : `:${url.port}`}`;
  const via = socket === null ? "" : ` (socket ${socket})`;
  return `${url.protocol}//${user}${host}${url.pathname}${via}`;
}

/** The URL's password (decoded), "" when it has none: a value never to show anywhere. */
export function databasePassword(value: string): string {
  const parsed = parseDatabaseURL(value);
  if (parsed === undefined) return "";
  try {
    return decodeURIComponent(parsed.url.password);
  } catch {
    return parsed.url.password;
  }
}

/**
 * The URL as the driver (pg-connection-string) reads it: `user:pw@/db?host=/socket` (credentials
 * with an empty host) is valid there though not to WHATWG URL, so it is read with a stand-in host.
 */
function parseDatabaseURL(value: string): { url: URL; hostname: string } | undefined {
  try {
    const url = new URL(value);
    return { url, hostname: url.hostname };
  } catch {
    // Not a URL as it stands; maybe one with credentials and an empty host.
  }
  if (!value.includes("@/")) return undefined;
  try {
    return { url: new URL(value.replace("@/", "@stand-in-host/")), hostname: "" };
  } catch {
    return undefined;
  }
}
