import { Server as HttpServer } from "node:http";
import type { Server as NetServer, Socket } from "node:net";

/**
 * How long a client may take, and how many connections it may hold. Applied to every
 * connection the gateway's port accepts, whichever protocol server then handles it (HTTP/1.1,
 * HTTP/2): the per-client cap and the idle timeout act on the raw socket, before anything reads
 * it; the header and whole-request timeouts are the HTTP/1.1 server's own.
 */
export interface ConnectionLimits {
  /** A request's head must arrive within this (a slow-loris request line is cut). */
  readonly headersTimeoutMs: number;
  /** A request, head and body, must arrive within this (a body dripping in is cut). */
  readonly requestTimeoutMs: number;
  /**
   * A connection on which nothing moves for this long while the gateway waits on its client is
   * closed: a stalled body, a silent new connection. The JSON front door pauses it while it works
   * on a request it has whole; Node's HTTP/1.1 server brings it back for the next request.
   */
  readonly idleTimeoutMs: number;
  /** An idle keep-alive connection between requests is closed after this. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections per client address; 0: no cap (e.g. behind a reverse proxy). */
  readonly maxConnectionsPerClient: number;
  /** A server-sent event stream sends a comment this often, so it is never idle. */
  readonly sseHeartbeatMs: number;
}

export const defaultConnectionLimits: ConnectionLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  idleTimeoutMs: 75_000,
  // Above the 60 s idle timeout of common load balancers, so they close first, never us.
  keepAliveTimeoutMs: 65_000,
  maxConnectionsPerClient: 64,
  sseHeartbeatMs: 20_000,
};

/** What the guard did, for `/metrics`. */
export interface ConnectionGuardEvents {
  rejected(reason: "per-client-limit"): void;
  timedOut(kind: "idle"): void;
}

/**
 * Applies `limits` to `server`: its listener runs first on every accepted connection. A client
 * address over its cap has the new connection closed at once; every connection gets the idle
 * timeout. An HTTP/1.1 server also gets the header, request and keep-alive timeouts (checked at
 * least every second, so a timeout of a second acts within about two).
 */
export function guardConnections({
  server,
  limits,
  events,
}: {
  server: NetServer;
  limits: ConnectionLimits;
  events?: ConnectionGuardEvents;
}): { readonly openByClient: ReadonlyMap<string, number> } {
  if (server instanceof HttpServer) {
    // The HTTP/1.1 server resets a socket's timeout to this between requests: the idle timeout.
    server.timeout = limits.idleTimeoutMs;
    server.headersTimeout = limits.headersTimeoutMs;
    server.requestTimeout = limits.requestTimeoutMs;
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    // Node checks the header and request timeouts on this interval (30 s by default), read when
    // the server starts listening (the property is not in @types/node).
    (server as HttpServer & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
      Math.max(250, Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs));
  }
  const open = new Map<string, number>();
  server.prependListener("connection", (socket: Socket) => {
    const client = clientAddress(socket);
    const count = (open.get(client) ?? 0) + 1;
    if (limits.maxConnectionsPerClient > 0 && count > limits.maxConnectionsPerClient) {
      events?.rejected("per-client-limit");
      socket.destroy();
      return;
    }
    open.set(client, count);
    socket.once("close", () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left <= 0) open.delete(client);
      else open.set(client, left);
    });
    if (limits.idleTimeoutMs > 0) {
      socket.setTimeout(limits.idleTimeoutMs);
      socket.once("timeout", () => {
        events?.timedOut("idle");
        socket.destroy();
      });
    }
  });
  return { openByClient: open };
}

/** The client's address; an IPv4 address mapped into IPv6 is the IPv4 address. */
function clientAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
}
