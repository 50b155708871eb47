import { connect } from "node:net";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { formatAuthority } from "./connect-target.js";
import type { ConnectTarget } from "./connect-target.js";
import type { ProxyLogger, ProxyStats } from "./proxy-stats.js";

const connectTimeoutMs = 10_000;
/** After one side finished, the other gets this long to finish too before both are closed. */
const halfCloseGraceMs = 30_000;

export const connectionEstablished = "HTTP/1.1 200 Connection Established\r\n\r\n";

/** Refuses a CONNECT in plain text (the client has not started TLS yet) and closes. */
export function refuseConnect({
  socket,
  status,
  reason,
  message,
}: {
  socket: Duplex;
  status: number;
  reason: string;
  message: string;
}): void {
  const body = `cursor-gateway proxy: ${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The proxy's server sockets allow half-open connections (CONNECT needs that for tunnels), so a
 * client that finished without closing would otherwise keep its connection forever: once the
 * client has ended, the proxy ends its side too and closes the socket after a grace period.
 */
export function closeAfterPeerEnds(socket: Duplex): void {
  socket.once("end", () => {
    socket.end();
    setTimeout(() => socket.destroy(), halfCloseGraceMs).unref();
  });
}

/**
 * Joins two byte streams both ways with backpressure, and makes sure neither outlives the other:
 * an error closes both at once, a clean end in one direction leaves the other a grace period.
 */
export function joinStreams({
  client,
  upstream,
  onSent,
  onReceived,
}: {
  client: Duplex;
  upstream: Duplex;
  onSent: (bytes: number) => void;
  onReceived: (bytes: number) => void;
}): void {
  let grace: NodeJS.Timeout | undefined;
  const closeBoth = () => {
    if (grace !== undefined) clearTimeout(grace);
    client.destroy();
    upstream.destroy();
  };
  const ended = () => {
    grace ??= setTimeout(closeBoth, halfCloseGraceMs);
    grace.unref();
  };
  client.on("data", (chunk: Buffer) => onSent(chunk.length));
  upstream.on("data", (chunk: Buffer) => onReceived(chunk.length));
  client.pipe(upstream);
  upstream.pipe(client);
  client.once("end", ended);
  upstream.once("end", ended);
  client.once("error", closeBoth);
  upstream.once("error", closeBoth);
  client.once("close", closeBoth);
  upstream.once("close", closeBoth);
}

/** A CONNECT to a host that is not Cursor's: bytes both ways, nothing looked at. */
export function openTunnel({
  client,
  head,
  target,
  stats,
  logger,
  track,
}: {
  client: Socket;
  head: Buffer;
  target: ConnectTarget;
  stats: ProxyStats;
  logger: ProxyLogger;
  track: (socket: Socket) => void;
}): void {
  stats.value.tunnels.open += 1;
  stats.value.tunnels.total += 1;
  const upstream = connect({ host: target.host, port: target.port });
  track(upstream);
  upstream.setNoDelay(true);
  client.setNoDelay(true);
  let settled = false;
  // Every outcome (refused, failed, finished, the proxy closing) ends with the upstream closed.
  upstream.once("close", () => {
    stats.value.tunnels.open -= 1;
  });
  const timer = setTimeout(() => upstream.destroy(new Error("ETIMEDOUT")), connectTimeoutMs);
  const failBeforeConnect = (error: Error) => {
    clearTimeout(timer);
    if (settled) return;
    settled = true;
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    logger.debug({ target: formatAuthority(target), code }, "proxy: tunnel target unreachable");
    refuseConnect({
      socket: client,
      status: 502,
      reason: "Bad Gateway",
      message: `cannot reach ${formatAuthority(target)} (${code})`,
    });
  };
  upstream.once("error", failBeforeConnect);
  client.once("close", () => {
    if (!settled) {
      clearTimeout(timer);
      upstream.destroy();
    }
  });
  upstream.once("connect", () => {
    clearTimeout(timer);
    upstream.off("error", failBeforeConnect);
    if (client.destroyed) {
      settled = true;
      upstream.destroy();
      return;
    }
    settled = true;
    client.write(connectionEstablished);
    if (head.length > 0) {
      stats.value.bytes.tunnel.sent += head.length;
      upstream.write(head);
    }
    joinStreams({
      client,
      upstream,
      onSent: (bytes) => (stats.value.bytes.tunnel.sent += bytes),
      onReceived: (bytes) => (stats.value.bytes.tunnel.received += bytes),
    });
  });
}
