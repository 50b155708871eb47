import { isIP } from "node:net";

/** The authority of a CONNECT request (`host:port`, RFC 9110 9.3.6). */
export interface ConnectTarget {
  /** Lower case, without a trailing dot or IPv6 brackets. */
  readonly host: string;
  readonly port: number;
}

const hostnamePattern =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** Undefined when `authority` is not `host:port` with a valid host name or address. */
export function parseConnectTarget(authority: string): ConnectTarget | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(authority);
  if (match === null) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return undefined;
  if (match[1] !== undefined)
    return isIP(match[1]) === 6 ? { host: match[1].toLowerCase(), port } : undefined;
  const host = match[2]!.toLowerCase().replace(/\.$/, "");
  if (isIP(host) === 4 || hostnamePattern.test(host)) return { host, port };
  return undefined;
}

/**
 * Cursor's API hosts: `cursor.sh` and every subdomain (`api2`, `api3`, `agent.api5`,
 * `agentn.api5`, ...). Only these are TLS-terminated; every other host is a byte tunnel.
 */
export function isCursorHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "cursor.sh" || name.endsWith(".cursor.sh");
}

export function formatAuthority({ host, port }: ConnectTarget): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}
