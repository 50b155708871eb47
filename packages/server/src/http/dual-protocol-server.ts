import { createServer as createHttp1Server } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer as createHttp2Server } from "node:http2";
import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from "node:http2";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";

/** What every HTTP/2 connection starts with (RFC 9113 §3.4): h2c with prior knowledge. */
const http2Preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export type DualProtocolHandler = (
  request: IncomingMessage | Http2ServerRequest,
  response: ServerResponse | Http2ServerResponse,
) => void;

export interface DualProtocolServer {
  /** The listening server (HTTP/1.1); what Fastify's `serverFactory` returns. */
  readonly server: Server;
  /** Open HTTP/2 connections. */
  readonly http2Sessions: number;
  /** Closes every HTTP/2 connection: gracefully, destroyed after `graceMs`. */
  closeHttp2Sessions(graceMs?: number): Promise<void>;
}

/**
 * One port for HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c, what an HTTP/2 client
 * sends without TLS): the first bytes of each connection say which. A connection that starts
 * with the HTTP/2 preface goes to a Node HTTP/2 server, any other to the HTTP/1.1 server; both
 * call `handler` with Node's (compatible) request and response objects.
 */
export function createDualProtocolServer(handler: DualProtocolHandler): DualProtocolServer {
  const http1 = createHttp1Server(handler);
  const http2 = createHttp2Server({}, handler);
  const sessions = new Set<Http2Session>();
  http2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  // Node's own connection listener of the HTTP/1.1 server (the HTTP parser); the sniffer below
  // replaces it and calls it for every connection that is not HTTP/2.
  const [http1Connection] = http1.listeners("connection") as ((socket: Socket) => void)[];
  if (http1Connection === undefined)
    throw new Error("the HTTP/1.1 server has no connection listener");
  http1.removeListener("connection", http1Connection);
  http1.on("connection", (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const compared = Math.min(head.length, http2Preface.length);
      const http2Start = head.subarray(0, compared).equals(http2Preface.subarray(0, compared));
      if (http2Start && head.length < http2Preface.length) return; // not decided yet
      socket.removeListener("data", onData);
      socket.pause();
      if (http2Start) {
        // The HTTP/2 session reads the socket's handle directly and would miss bytes already
        // read here: it gets a stream that replays them first.
        http2.emit("connection", new PrereadSocket(socket, head));
        return;
      }
      socket.unshift(head);
      http1Connection.call(http1, socket);
      socket.resume();
    };
    socket.on("data", onData);
  });
  return {
    server: http1,
    get http2Sessions() {
      return sessions.size;
    },
    async closeHttp2Sessions(graceMs = 2_000) {
      await Promise.all(
        [...sessions].map(
          (session) =>
            new Promise<void>((resolve) => {
              if (session.closed || session.destroyed) return resolve();
              const timer = setTimeout(() => session.destroy(), graceMs);
              timer.unref();
              session.once("close", () => {
                clearTimeout(timer);
                resolve();
              });
              session.close();
            }),
        ),
      );
    },
  };
}

/**
 * A socket whose first bytes were already read: yields them, then the socket's own data; writes
 * go to the socket. Node's HTTP/2 session wraps any such stream itself.
 */
class PrereadSocket extends Duplex {
  readonly #socket: Socket;

  constructor(socket: Socket, head: Buffer) {
    super();
    this.#socket = socket;
    this.push(head);
    socket.on("data", (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.once("end", () => this.push(null));
    socket.once("error", (error) => this.destroy(error));
    socket.once("close", () => this.destroy());
  }

  override _read(): void {
    this.#socket.resume();
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error | null) => void,
  ): void {
    this.#socket.write(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#socket.destroy();
    callback(error);
  }

  // What the HTTP/2 session and request objects read of their socket.
  get remoteAddress(): string | undefined {
    return this.#socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.#socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.#socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.#socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.#socket.localPort;
  }
  setTimeout(ms: number, callback?: () => void): this {
    this.#socket.setTimeout(ms, callback);
    return this;
  }
  setNoDelay(noDelay?: boolean): this {
    this.#socket.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, delay?: number): this {
    this.#socket.setKeepAlive(enable, delay);
    return this;
  }
}
