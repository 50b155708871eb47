import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { connect as http2Connect, constants as http2Constants } from "node:http2";
import type { ClientHttp2Session, ClientHttp2Stream, IncomingHttpHeaders } from "node:http2";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Socket } from "node:net";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { connect as tlsConnect } from "node:tls";
import type { TLSSocket } from "node:tls";
import { CursorError } from "@cursor/run";
import { endToEndHeaders } from "./hop-by-hop.js";
import type { HeaderMap } from "./hop-by-hop.js";

/** One request the proxy sends on to the next hop (Cursor or the gateway). */
export interface HopRequest {
  /** `https://host:port` (Cursor) or `http://host:port` (the gateway). */
  readonly origin: string;
  /** The client's protocol; the next hop speaks HTTP/2 only when the client does and it can. */
  readonly protocol: "h1" | "h2";
  readonly method: string;
  readonly path: string;
  /** The authority the client addressed (`Host` / `:authority`), passed on unchanged. */
  readonly authority: string;
  /** End-to-end headers (hop-by-hop already dropped). */
  readonly headers: HeaderMap;
  /** A buffered body, or the client's body stream relayed as it arrives. */
  readonly body: Uint8Array | Readable;
  readonly signal: AbortSignal;
}

/** The next hop's answer; its body streams. */
export interface HopResponse {
  readonly status: number;
  readonly headers: HeaderMap;
  readonly body: Readable;
  /** End-to-end trailers, once the body has ended (empty when there were none). */
  trailers(): HeaderMap;
  /**
   * Whether the body ended because the hop finished it, not because its connection broke:
   * an HTTP/2 stream of a dropped session also ends, with a reset code instead of NO_ERROR.
   */
  endedCleanly(): Promise<boolean>;
  readonly protocol: "h1" | "h2";
}

export type HopErrorKind = "unreachable" | "tls" | "reset" | "timeout";

const hopErrorMarker = Symbol.for("cursor.error.proxy-hop");
/** The next hop could not be reached or failed before it answered. */
export class HopError extends CursorError {
  readonly [hopErrorMarker] = true;
  readonly kind: HopErrorKind;
  readonly origin: string;
  readonly code: string | undefined;
  constructor({
    kind,
    origin,
    code,
    message,
    cause,
  }: {
    kind: HopErrorKind;
    origin: string;
    code?: string;
    message: string;
    cause?: unknown;
  }) {
    super({ name: "HopError", message, cause });
    this.kind = kind;
    this.origin = origin;
    this.code = code;
  }
  static override isInstance(error: unknown): error is HopError {
    return typeof error === "object" && error !== null && hopErrorMarker in error;
  }
}

const tlsErrorCodes = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_SSL_WRONG_VERSION_NUMBER",
]);

function toHopError({ error, origin }: { error: unknown; origin: string }): HopError {
  if (HopError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const detail = (error as Error).message;
  if (code !== undefined && tlsErrorCodes.has(code)) {
    return new HopError({
      kind: "tls",
      origin,
      code,
      message: `the certificate of ${origin} is not trusted (${code}: ${detail}); if it is a local stand-in, add its CA to NODE_EXTRA_CA_CERTS`,
      cause: error,
    });
  }
  const reset = code === "ECONNRESET" || code === "EPIPE" || code === "ERR_HTTP2_STREAM_ERROR";
  return new HopError({
    kind: reset ? "reset" : "unreachable",
    origin,
    ...(code === undefined ? {} : { code }),
    message: `${origin} ${reset ? "closed the connection" : "is not reachable"} (${code ?? detail})`,
    cause: error,
  });
}

export interface HopClientOptions {
  /** CAs to trust for Cursor's TLS instead of Node's default store (which has NODE_EXTRA_CA_CERTS). */
  readonly ca?: readonly string[];
  /** TCP + TLS connect deadline. Streams themselves never time out: RunSSE can idle for long. */
  readonly connectTimeoutMs?: number;
}

const http1OnlyRememberMs = 10 * 60_000;

/**
 * Sends the proxy's requests to the next hops and keeps their connections: keep-alive HTTP/1.1
 * agents, and one HTTP/2 session per origin that negotiated h2 through ALPN.
 */
export class HopClient {
  readonly #connectTimeoutMs: number;
  readonly #ca: readonly string[] | undefined;
  readonly #httpsAgent: HttpsAgent;
  readonly #httpAgent: HttpAgent;
  readonly #sessions = new Map<string, Promise<ClientHttp2Session | undefined>>();
  readonly #http1Only = new Map<string, number>();
  readonly #liveSessions = new Set<ClientHttp2Session>();
  #closed = false;

  constructor(options: HopClientOptions = {}) {
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#ca = options.ca;
    const agentOptions = {
      keepAlive: true,
      maxSockets: 256,
      maxFreeSockets: 32,
      scheduling: "lifo",
    } as const;
    this.#httpsAgent = new HttpsAgent({
      ...agentOptions,
      ...(this.#ca === undefined ? {} : { ca: [...this.#ca] }),
    });
    this.#httpAgent = new HttpAgent(agentOptions);
  }

  async request(request: HopRequest): Promise<HopResponse> {
    if (this.#closed) {
      throw new HopError({
        kind: "unreachable",
        origin: request.origin,
        message: "the proxy is closing",
      });
    }
    const url = new URL(request.origin);
    if (request.protocol === "h2" && url.protocol === "https:") {
      let session = await this.#session(request.origin);
      if (session !== undefined && (session.closed || session.destroyed)) {
        // Closed (GOAWAY, idle) between its last use and now: open a fresh one.
        this.#sessions.delete(request.origin);
        session = await this.#session(request.origin);
      }
      if (session !== undefined) return this.#http2Request({ session, request });
    }
    return this.#http1Request({ url, request });
  }

  /** Closes every kept connection; requests in flight fail. */
  close(): void {
    this.#closed = true;
    this.#httpsAgent.destroy();
    this.#httpAgent.destroy();
    for (const session of this.#liveSessions) session.destroy();
    this.#liveSessions.clear();
    this.#sessions.clear();
  }

  #http1Request({ url, request }: { url: URL; request: HopRequest }): Promise<HopResponse> {
    const secure = url.protocol === "https:";
    const headers: OutgoingHttpHeaders = { ...request.headers, host: request.authority };
    if (request.body instanceof Uint8Array) headers["content-length"] = String(request.body.length);
    const options = {
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(url.port || (secure ? 443 : 80)),
      method: request.method,
      path: request.path,
      headers,
      agent: secure ? this.#httpsAgent : this.#httpAgent,
      // The hop's certificate is checked against the hop's own name: without this, Node would
      // take the name from the Host header (the Cursor host the IDE addressed). "" = no SNI.
      ...(secure ? { servername: isIP(url.hostname) === 0 ? url.hostname : "" } : {}),
    };
    return new Promise<HopResponse>((resolve, reject) => {
      const outgoing: ClientRequest = secure ? httpsRequest(options) : httpRequest(options);
      let answered = false;
      const fail = (error: unknown) => {
        if (answered) return;
        answered = true;
        reject(toHopError({ error, origin: request.origin }));
      };
      const onAbort = () => {
        outgoing.destroy();
        fail(
          new HopError({ kind: "reset", origin: request.origin, message: "the client went away" }),
        );
      };
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener("abort", onAbort, { once: true });
      outgoing.on("socket", (socket: Socket) =>
        this.#connectDeadline({
          socket,
          secure,
          origin: request.origin,
          onTimeout: (error) => {
            outgoing.destroy();
            fail(error);
          },
        }),
      );
      outgoing.on("error", fail);
      outgoing.on("response", (incoming: IncomingMessage) => {
        answered = true;
        incoming.on("close", () => request.signal.removeEventListener("abort", onAbort));
        resolve({
          status: incoming.statusCode ?? 502,
          headers: endToEndHeaders(incoming.headers),
          body: incoming,
          trailers: () => endToEndHeaders(incoming.trailers),
          endedCleanly: () => Promise.resolve(incoming.complete),
          protocol: "h1",
        });
      });
      writeBody({
        body: request.body,
        sink: outgoing,
        onError: (error) => {
          outgoing.destroy();
          fail(error);
        },
      });
    });
  }

  #http2Request({
    session,
    request,
  }: {
    session: ClientHttp2Session;
    request: HopRequest;
  }): Promise<HopResponse> {
    return new Promise<HopResponse>((resolve, reject) => {
      let stream: ClientHttp2Stream;
      try {
        stream = session.request({
          ...request.headers,
          ":method": request.method,
          ":path": request.path,
          ":authority": request.authority,
          ":scheme": "https",
          ...(request.body instanceof Uint8Array
            ? { "content-length": String(request.body.length) }
            : {}),
        });
      } catch (error) {
        reject(toHopError({ error, origin: request.origin }));
        return;
      }
      let answered = false;
      let trailers: HeaderMap = {};
      const fail = (error: unknown) => {
        if (answered) return;
        answered = true;
        reject(toHopError({ error, origin: request.origin }));
      };
      const onAbort = () => {
        stream.close(http2Constants.NGHTTP2_CANCEL);
        fail(
          new HopError({ kind: "reset", origin: request.origin, message: "the client went away" }),
        );
      };
      if (request.signal.aborted) return onAbort();
      request.signal.addEventListener("abort", onAbort, { once: true });
      stream.on("close", () => request.signal.removeEventListener("abort", onAbort));
      stream.on("error", fail);
      stream.on("trailers", (headers: IncomingHttpHeaders) => {
        trailers = endToEndHeaders(headers);
      });
      stream.on("response", (headers: IncomingHttpHeaders) => {
        answered = true;
        resolve({
          status: Number(headers[":status"] ?? 502),
          headers: endToEndHeaders(headers),
          body: stream,
          trailers: () => trailers,
          endedCleanly: () =>
            new Promise<boolean>((resolveEnd) => {
              const settle = () => resolveEnd(stream.rstCode === http2Constants.NGHTTP2_NO_ERROR);
              if (stream.closed) settle();
              else stream.once("close", settle);
            }),
          protocol: "h2",
        });
      });
      writeBody({
        body: request.body,
        sink: stream,
        onError: (error) => {
          stream.destroy();
          fail(error);
        },
      });
    });
  }

  /** The origin's HTTP/2 session, or undefined when it speaks only HTTP/1.1. */
  #session(origin: string): Promise<ClientHttp2Session | undefined> {
    const http1Until = this.#http1Only.get(origin);
    if (http1Until !== undefined && http1Until > Date.now()) return Promise.resolve(undefined);
    const existing = this.#sessions.get(origin);
    if (existing !== undefined) return existing;
    const created = this.#connectHttp2(origin).catch((error: unknown) => {
      this.#sessions.delete(origin);
      throw toHopError({ error, origin });
    });
    this.#sessions.set(origin, created);
    return created;
  }

  #connectHttp2(origin: string): Promise<ClientHttp2Session | undefined> {
    const url = new URL(origin);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    return new Promise((resolve, reject) => {
      const socket: TLSSocket = tlsConnect({
        host,
        port: Number(url.port || 443),
        ALPNProtocols: ["h2", "http/1.1"],
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ...(this.#ca === undefined ? {} : { ca: [...this.#ca] }),
      });
      this.#connectDeadline({
        socket,
        secure: true,
        origin,
        onTimeout: (error) => {
          socket.destroy();
          reject(error);
        },
      });
      socket.once("error", reject);
      socket.once("secureConnect", () => {
        socket.off("error", reject);
        if (socket.alpnProtocol !== "h2") {
          this.#http1Only.set(origin, Date.now() + http1OnlyRememberMs);
          this.#sessions.delete(origin);
          socket.destroy();
          resolve(undefined);
          return;
        }
        const session = http2Connect(origin, { createConnection: () => socket });
        const created = this.#sessions.get(origin);
        this.#liveSessions.add(session);
        const forget = () => {
          this.#liveSessions.delete(session);
          if (this.#sessions.get(origin) === created) this.#sessions.delete(origin);
        };
        session.on("close", forget);
        session.on("goaway", forget);
        session.on("error", forget);
        // An idle session is closed; the next request opens a new one.
        session.setTimeout(60_000, () => {
          forget();
          session.close();
        });
        resolve(session);
      });
    });
  }

  /** A new connection must be up (TCP, and TLS when `secure`) in time; a kept one is. */
  #connectDeadline({
    socket,
    secure,
    origin,
    onTimeout,
  }: {
    socket: Socket;
    secure: boolean;
    origin: string;
    onTimeout: (error: HopError) => void;
  }): void {
    if (!socket.connecting) return;
    const timer = setTimeout(() => {
      onTimeout(
        new HopError({
          kind: "timeout",
          origin,
          message: `${origin} did not accept a connection within ${this.#connectTimeoutMs} ms`,
        }),
      );
    }, this.#connectTimeoutMs);
    const connected = () => clearTimeout(timer);
    socket.once(secure ? "secureConnect" : "connect", connected);
    socket.once("close", connected);
  }
}

function writeBody({
  body,
  sink,
  onError,
}: {
  body: Uint8Array | Readable;
  sink: NodeJS.WritableStream & { end(chunk?: Uint8Array): unknown };
  onError: (error: unknown) => void;
}): void {
  if (body instanceof Uint8Array) {
    sink.end(body);
    return;
  }
  pipeline(body, sink).catch(onError);
}
