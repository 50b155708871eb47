import { pino } from "pino";
import type { Logger } from "pino";
import type { LogFormat, LogLevel } from "../config.js";
import type { LogOutput } from "./log-output.js";
import { createPrettyLogStream } from "./pretty-log-stream.js";

/**
 * The gateway's logger: pino, writing one JSON object per line, or one readable line per event
 * when `format` is `pretty` (the default when `out` is a terminal). Both carry the same fields;
 * the pretty stream only renders them.
 */
export function createGatewayLogger({
  level,
  format,
  out = process.stdout,
  env = process.env,
}: {
  level: LogLevel;
  format?: LogFormat;
  out?: LogOutput;
  env?: Record<string, string | undefined>;
}): Logger {
  const pretty = (format ?? (out.isTTY === true ? "pretty" : "json")) === "pretty";
  const destination = pretty
    ? createPrettyLogStream({ out, color: out.isTTY === true && env.NO_COLOR === undefined })
    : { write: (line: string) => out.write(line) };
  return pino({ level, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
