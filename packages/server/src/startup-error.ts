import { CursorError } from "@cursor/run";

const startupErrorMarker = Symbol.for("cursor.error.startup");

/**
 * - `port-in-use`, `listen`: the listen address cannot be used (the message names the variable);
 * - `data-dir`: the data folder cannot be created or written (the message names the path);
 * - `data-dir-in-use`: another gateway process owns the data folder's SQLite store.
 */
export type StartupErrorReason = "port-in-use" | "listen" | "data-dir" | "data-dir-in-use";

/**
 * The gateway (or the proxy) cannot start on this machine as configured. Its message is one
 * line that says what to change; nothing was left running.
 */
export class StartupError extends CursorError {
  readonly [startupErrorMarker] = true;
  readonly reason: StartupErrorReason;
  constructor({
    reason,
    message,
    cause,
  }: {
    reason: StartupErrorReason;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "StartupError", message, cause });
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is StartupError {
    return typeof error === "object" && error !== null && startupErrorMarker in error;
  }
}

/**
 * A failed `listen` as a `StartupError` naming what to change: `variables` are the environment
 * variables of this listener's host and port (e.g. CURSOR_GATEWAY_HOST / CURSOR_GATEWAY_PORT).
 * Anything else is returned as it was.
 */
export function listenError({
  error,
  what,
  host,
  port,
  variables,
}: {
  error: unknown;
  what: string;
  host: string;
  port: number;
  variables: { host: string; port: string };
}): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  switch (code) {
    case "EADDRINUSE":
      return new StartupError({
        reason: "port-in-use",
        message: `${what} cannot listen on ${address}: the port is already in use (is another gateway running?); set ${variables.port} to a free port`,
        cause: error,
      });
    case "EACCES":
      return new StartupError({
        reason: "listen",
        message: `${what} cannot listen on ${address}: permission denied (ports below 1024 need privileges); set ${variables.port} to a port from 1024 up`,
        cause: error,
      });
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new StartupError({
        reason: "listen",
        message: `${what} cannot listen on ${address}: no such address on this machine; set ${variables.host} to one of its addresses (e.g. 127.0.0.1)`,
        cause: error,
      });
    default:
      return error;
  }
}
