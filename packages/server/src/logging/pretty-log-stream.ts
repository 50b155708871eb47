import type { LogOutput } from "./log-output.js";

const levelNames: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
const levelColors: Record<number, string> = {
  10: "\u001b[90m",
  20: "\u001b[90m",
  30: "\u001b[32m",
  40: "\u001b[33m",
  50: "\u001b[31m",
  60: "\u001b[35m",
};
const dim = "\u001b[2m";
const reset = "\u001b[0m";

// pino's own fields and the request line's, rendered by position rather than as key=value.
const positional = new Set([
  "level",
  "time",
  "pid",
  "hostname",
  "msg",
  "reqId",
  "req",
  "res",
  "err",
]);

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A pino destination that writes each JSON log line as one readable line:
 * `10:15:02.123 INFO  POST /v1/runs 200 412 ms run c-1/r-1 awaiting-tools`, other events as
 * `time LEVEL message key=value …`, and an error's stack indented below it. A line that is not
 * pino's JSON is written unchanged.
 */
export function createPrettyLogStream({ out, color }: { out: LogOutput; color: boolean }) {
  const paint = (code: string, text: string) => (color ? `${code}${text}${reset}` : text);
  return {
    write(line: string): void {
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      if (!isRecord(entry)) {
        out.write(line);
        return;
      }
      const level = typeof entry.level === "number" ? entry.level : 30;
      const time = typeof entry.time === "string" ? timeOfDay(entry.time) : "";
      const name = (levelNames[level] ?? String(level)).padEnd(5);
      const head = `${paint(dim, time)} ${paint(levelColors[level] ?? "", name)}`;
      const isRequest = isRecord(entry.req);
      const fields = Object.entries(entry)
        .filter(([key]) => !positional.has(key) && !(isRequest && (key === "ms" || key === "run")))
        .map(([key, value]) => `${key}=${formatValue(value)}`);
      const text = isRequest ? requestLine(entry) : typeof entry.msg === "string" ? entry.msg : "";
      const error = isRecord(entry.err) ? entry.err : undefined;
      const errorText =
        error === undefined
          ? ""
          : ` ${String(error.type ?? "Error")}: ${String(error.message ?? "")}`;
      const stack =
        error !== undefined && typeof error.stack === "string" && level >= 50
          ? `\n${error.stack
              .split("\n")
              .slice(1)
              .map((frame) => `    ${frame.trim()}`)
              .join("\n")}`
          : "";
      const rest = fields.length === 0 ? "" : ` ${paint(dim, fields.join(" "))}`;
      out.write(`${head} ${text}${errorText}${rest}${stack}\n`);
    },
  };
}

/** `POST /v1/runs 200 412 ms`: the request log line's fields. */
function requestLine(entry: Json): string {
  const req = entry.req as Json;
  const status = isRecord(entry.res) ? entry.res.statusCode : undefined;
  const ms = typeof entry.ms === "number" ? `${entry.ms} ms` : "";
  const run = typeof entry.run === "string" ? `run ${entry.run}` : "";
  return [req.method, req.url, status, ms, run]
    .filter((part) => part !== undefined && part !== "")
    .map(String)
    .join(" ");
}

function timeOfDay(iso: string): string {
  const match = /T(\d\d:\d\d:\d\d(?:\.\d{1,3})?)/.exec(iso);
  return match?.[1] ?? iso;
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return /\s|"/.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}
