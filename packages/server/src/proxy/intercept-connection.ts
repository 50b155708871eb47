import type { IncomingMessage } from "node:http";
import { createSecureServer } from "node:http2";
import type { Http2SecureServer } from "node:http2";
import { isIP } from "node:net";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import type { TLSSocket } from "node:tls";
import { formatAuthority } from "./connect-target.js";
import type { ConnectTarget } from "./connect-target.js";
import type { ClientRequest, ClientResponse } from "./exchange.js";
import type { ProxyCertificateAuthority } from "./proxy-ca.js";
import type { ProxyLogger, ProxyStats } from "./proxy-stats.js";
import { closeAfterPeerEnds, connectionEstablished, joinStreams, refuseConnect } from "./tunnel.js";

const handshakeTimeoutMs = 15_000;
/** Cursor uses a handful of hosts; the bound only stops a misbehaving client growing the cache. */
const maxServers = 64;

type CursorRequestHandler = (input: {
  req: ClientRequest;
  res: ClientResponse;
  cursorOrigin: string;
}) => void;

export interface InterceptOptions {
  readonly ca: ProxyCertificateAuthority;
  readonly stats: ProxyStats;
  readonly logger: ProxyLogger;
  readonly track: (socket: Duplex) => void;
  /** Trust for the TLS of upgraded (WebSocket) connections relayed to Cursor. */
  readonly upstreamCa?: readonly string[];
  /** Where the relayed requests of a CONNECT target go. */
  readonly cursorOrigin: (target: ConnectTarget) => string;
  readonly onRequest: CursorRequestHandler;
}

/**
 * Terminates the IDE's TLS for CONNECTs to Cursor's hosts. Each CONNECT target gets one
 * TLS server (never listening; connections are handed to it) presenting a certificate for that
 * host from the local CA, speaking HTTP/2 or HTTP/1.1 as ALPN decides.
 */
export class CursorInterceptor {
  readonly #options: InterceptOptions;
  readonly #servers = new Map<string, Promise<Http2SecureServer>>();
  /** Hosts whose clients refused the proxy's certificate (warned about once each). */
  readonly #untrustedWarned = new Set<string>();

  constructor(options: InterceptOptions) {
    this.#options = options;
  }

  async intercept({
    client,
    head,
    target,
  }: {
    client: Socket;
    head: Buffer;
    target: ConnectTarget;
  }) {
    const { stats, logger } = this.#options;
    let server: Http2SecureServer;
    try {
      server = await this.#server(target);
    } catch (error) {
      logger.error(
        { host: target.host, error: (error as Error).message },
        "proxy: cannot mint a certificate",
      );
      refuseConnect({
        socket: client,
        status: 500,
        reason: "Internal Server Error",
        message: "cannot mint a certificate",
      });
      return;
    }
    if (client.destroyed) return;
    stats.value.intercepted.open += 1;
    stats.value.intercepted.total += 1;
    client.once("close", () => {
      stats.value.intercepted.open -= 1;
    });
    client.setNoDelay(true);
    client.write(connectionEstablished);
    if (head.length > 0) client.unshift(head);
    logger.debug({ host: formatAuthority(target) }, "proxy: intercepting");
    server.emit("connection", client);
  }

  #server(target: ConnectTarget): Promise<Http2SecureServer> {
    const key = formatAuthority(target);
    const existing = this.#servers.get(key);
    if (existing !== undefined) return existing;
    const created = this.#options.ca
      .serverCredentials(target.host)
      .then(({ certPem, keyPem }) => this.#createServer({ target, certPem, keyPem }));
    created.catch(() => this.#servers.delete(key));
    this.#servers.set(key, created);
    while (this.#servers.size > maxServers) {
      const oldest = this.#servers.keys().next().value;
      if (oldest === undefined) break;
      this.#servers.delete(oldest);
    }
    return created;
  }

  #createServer({
    target,
    certPem,
    keyPem,
  }: {
    target: ConnectTarget;
    certPem: string;
    keyPem: string;
  }): Http2SecureServer {
    const { logger } = this.#options;
    const cursorOrigin = this.#options.cursorOrigin(target);
    const server = createSecureServer(
      {
        cert: certPem,
        key: keyPem,
        allowHTTP1: true,
        handshakeTimeout: handshakeTimeoutMs,
        // Long RunSSE streams and many parallel appends share one connection.
        settings: { maxConcurrentStreams: 1_000 },
      },
      (req, res) => this.#options.onRequest({ req, res, cursorOrigin }),
    );
    server.on("secureConnection", (socket: TLSSocket) => {
      this.#options.track(socket);
      // The raw socket is the TLS socket's now: its half-close must be handled here.
      closeAfterPeerEnds(socket);
      // The certificate is for the CONNECT host; a client asking (by SNI) for another name is
      // refused rather than served under a name the proxy did not intend.
      const servername = (socket as TLSSocket & { servername?: string | false }).servername;
      if (typeof servername === "string" && servername.toLowerCase() !== target.host) {
        logger.warn(
          { host: target.host, servername },
          "proxy: SNI does not match the CONNECT host",
        );
        socket.destroy();
      }
    });
    server.on("tlsClientError", (error: NodeJS.ErrnoException) => {
      const refused = /alert (unknown ca|bad certificate|certificate unknown)/i.test(error.message);
      if (refused && !this.#untrustedWarned.has(target.host)) {
        this.#untrustedWarned.add(target.host);
        logger.warn(
          { host: target.host, ca: this.#options.ca.certPath },
          "proxy: the client refused the proxy's certificate; trust the proxy CA (cursor-gateway setup prints how)",
        );
      } else {
        logger.debug({ host: target.host, code: error.code }, "proxy: TLS handshake failed");
      }
    });
    server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#relayUpgrade({ req, socket, head, cursorOrigin }),
    );
    server.on("sessionError", () => undefined);
    return server;
  }

  /**
   * An HTTP/1.1 upgrade (WebSocket) on a Cursor host: the request head goes to Cursor as it came
   * (its Connection/Upgrade headers are what the upgrade needs), then bytes flow both ways.
   */
  #relayUpgrade({
    req,
    socket,
    head,
    cursorOrigin,
  }: {
    req: IncomingMessage;
    socket: Duplex;
    head: Buffer;
    cursorOrigin: string;
  }): void {
    const { stats, upstreamCa, track } = this.#options;
    const url = new URL(cursorOrigin);
    const upstream = tlsConnect({
      host: url.hostname,
      port: Number(url.port || 443),
      ALPNProtocols: ["http/1.1"],
      ...(isIP(url.hostname) === 0 ? { servername: url.hostname } : {}),
      ...(upstreamCa === undefined ? {} : { ca: [...upstreamCa] }),
    });
    track(upstream);
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      stats.value.requests.failed += 1;
      refuseConnect({
        socket,
        status: 502,
        reason: "Bad Gateway",
        message: `Cursor's server did not answer the upgrade (${error.code ?? error.message})`,
      });
    });
    upstream.once("secureConnect", () => {
      const lines = [`${req.method ?? "GET"} ${req.url ?? "/"} HTTP/1.1`];
      for (let index = 0; index < req.rawHeaders.length; index += 2) {
        lines.push(`${req.rawHeaders[index]}: ${req.rawHeaders[index + 1]}`);
      }
      upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      stats.value.requests.cursor += 1;
      joinStreams({
        client: socket,
        upstream,
        onSent: (bytes) => (stats.value.bytes.cursor.sent += bytes),
        onReceived: (bytes) => (stats.value.bytes.cursor.received += bytes),
      });
    });
  }
}
