import { Agent, request as httpRequest } from "node:http";
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { connect as http2Connect } from "node:http2";
import type { ClientHttp2Session } from "node:http2";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect } from "node:tls";
import type { TLSSocket } from "node:tls";

/**
 * A client like the IDE: it reaches hosts only through the proxy (CONNECT) and trusts only the
 * CA it is given (the proxy's generated CA for Cursor's hosts).
 */

export interface ConnectAnswer {
  readonly status: number;
  readonly socket: Socket;
  /** The raw answer head (and body, for a refusal). */
  readonly head: string;
}

/** Sends `CONNECT authority` to the proxy; resolves with its answer and the socket. */
export function connectThroughProxy({
  proxyPort,
  authority,
}: {
  proxyPort: number;
  authority: string;
}): Promise<ConnectAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port: proxyPort,
      method: "CONNECT",
      path: authority,
      headers: { host: authority },
      agent: false,
    });
    req.once("connect", (res, socket, head) => {
      const status = res.statusCode ?? 0;
      if (status === 200) {
        if (head.length > 0) socket.unshift(head);
        resolve({ status, socket, head: `${status} ${res.statusMessage}` });
        return;
      }
      // A refusal: its body is what the proxy says went wrong.
      const chunks: Buffer[] = [head];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.once("close", () =>
        resolve({
          status,
          socket,
          head: `${status} ${res.statusMessage}\n${Buffer.concat(chunks).toString("utf8")}`,
        }),
      );
    });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          socket: res.socket,
          head: `${res.statusCode} ${res.statusMessage}\n${Buffer.concat(chunks).toString("utf8")}`,
        }),
      );
    });
    req.once("error", reject);
    req.end();
  });
}

/** A TLS connection to `host` through the proxy, trusting only `ca`. */
export async function tlsThroughProxy({
  proxyPort,
  host,
  port = 443,
  ca,
  alpn,
}: {
  proxyPort: number;
  host: string;
  port?: number;
  ca: readonly string[];
  alpn: readonly ("h2" | "http/1.1")[];
}): Promise<TLSSocket> {
  const answer = await connectThroughProxy({ proxyPort, authority: `${host}:${port}` });
  if (answer.status !== 200) {
    answer.socket.destroy();
    throw new Error(`CONNECT ${host}:${port} answered ${answer.head}`);
  }
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      socket: answer.socket,
      servername: host,
      ca: [...ca],
      ALPNProtocols: [...alpn],
    });
    // The TLS socket does not own the CONNECT socket it runs on: closing one closes both.
    socket.once("close", () => answer.socket.destroy());
    socket.once("secureConnect", () => resolve(socket));
    socket.once("error", reject);
  });
}

export interface ClientAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly trailers: Record<string, string | string[] | undefined>;
  /** Milliseconds from sending the request to the answer's head and to its first body byte. */
  readonly headMs: number;
  readonly firstByteMs: number;
  readonly totalMs: number;
}

/**
 * A keep-alive HTTP/1.1 agent whose connections are made by `connect` (through the proxy, or
 * straight to a server for a baseline), as the IDE keeps its connections.
 */
export function keepAliveAgent(connect: () => Promise<Duplex>): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  // Node's Agent accepts a connection made asynchronously through the callback form.
  (agent as unknown as { createConnection: unknown }).createConnection = (
    _options: unknown,
    done: (error: Error | null, socket?: Duplex) => void,
  ) => {
    connect().then(
      (socket) => done(null, socket),
      (error: Error) => done(error),
    );
    return undefined;
  };
  return agent;
}

/** One HTTP/1.1 request through `agent`. */
export function h1Request({
  agent,
  method = "POST",
  path,
  authority,
  headers = {},
  body,
}: {
  agent: Agent;
  method?: string;
  path: string;
  authority: string;
  headers?: OutgoingHttpHeaders;
  body?: Uint8Array;
}): Promise<ClientAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest({
      host: authority,
      method,
      path,
      headers: {
        host: authority,
        ...headers,
        ...(body === undefined ? {} : { "content-length": String(body.length) }),
      },
      agent,
    });
    req.once("error", reject);
    req.once("response", (res) => {
      const headMs = performance.now() - started;
      let firstByteMs = Number.NaN;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        if (chunks.length === 0) firstByteMs = performance.now() - started;
        chunks.push(chunk);
      });
      res.once("error", reject);
      res.once("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          trailers: res.trailers,
          headMs,
          firstByteMs,
          totalMs: performance.now() - started,
        }),
      );
    });
    req.end(body === undefined ? undefined : Buffer.from(body));
  });
}

/** An HTTP/2 session to `host` through the proxy, trusting only `ca`. */
export async function h2ThroughProxy({
  proxyPort,
  host,
  ca,
}: {
  proxyPort: number;
  host: string;
  ca: readonly string[];
}): Promise<ClientHttp2Session> {
  const socket = await tlsThroughProxy({ proxyPort, host, ca, alpn: ["h2"] });
  if (socket.alpnProtocol !== "h2") throw new Error(`ALPN chose ${String(socket.alpnProtocol)}`);
  return http2Connect(`https://${host}`, { createConnection: () => socket });
}

export function h2Request({
  session,
  method = "POST",
  path,
  headers = {},
  body,
}: {
  session: ClientHttp2Session;
  method?: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: Uint8Array;
}): Promise<ClientAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const stream = session.request({ ":method": method, ":path": path, ...headers });
    let status = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    let trailers: Record<string, string | string[] | undefined> = {};
    let headMs = Number.NaN;
    let firstByteMs = Number.NaN;
    const chunks: Buffer[] = [];
    stream.once("response", (head) => {
      headMs = performance.now() - started;
      status = Number(head[":status"]);
      responseHeaders = head;
    });
    stream.on("trailers", (head) => {
      trailers = head;
    });
    stream.on("data", (chunk: Buffer) => {
      if (chunks.length === 0) firstByteMs = performance.now() - started;
      chunks.push(chunk);
    });
    stream.once("error", reject);
    stream.once("end", () =>
      resolve({
        status,
        headers: responseHeaders,
        body: Buffer.concat(chunks),
        trailers,
        headMs,
        firstByteMs,
        totalMs: performance.now() - started,
      }),
    );
    stream.end(body === undefined ? undefined : Buffer.from(body));
  });
}
