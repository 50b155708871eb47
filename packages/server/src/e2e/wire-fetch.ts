import { request as http1Request } from "node:http";
import type { Agent, IncomingMessage } from "node:http";
import { connect as http2Connect, constants as http2Constants } from "node:http2";
import type { ClientHttp2Session, IncomingHttpHeaders } from "node:http2";
import { Readable } from "node:stream";
import type { FetchLike } from "@cursor/wire/testing";

/** A `fetch` for the scripted IDE client over one HTTP version, and how to let go of it. */
export interface WireFetch {
  readonly fetch: FetchLike;
  /** Which HTTP version the requests used (what the server answered with). */
  readonly versions: ReadonlySet<string>;
  close(): void;
}

export type WireProtocol = "h1" | "h2c";

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(":") || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) result.append(name, String(item));
  }
  return result;
}

/**
 * Node's own HTTP/1.1 client (keep-alive, or the agent given: e.g. one that tunnels through the
 * Cursor proxy), streaming response bodies as a `Response`.
 */
export function http1Fetch({ agent }: { agent?: Agent } = {}): WireFetch {
  const versions = new Set<string>();
  const fetch: FetchLike = (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      // Host and path from the URL; an agent that makes the connection (e.g. TLS through the
      // Cursor proxy) serves an https: origin too.
      const request = http1Request({
        hostname: target.hostname,
        port: target.port === "" ? (target.protocol === "https:" ? 443 : 80) : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: init.method,
        headers: {
          host: target.host,
          ...init.headers,
          "content-length": String(init.body.length),
        },
        ...(agent === undefined ? {} : { agent }),
        ...(init.signal === undefined ? {} : { signal: init.signal }),
      });
      request.once("response", (response: IncomingMessage) => {
        versions.add(response.httpVersion);
        const status = response.statusCode ?? 0;
        const body =
          status === 204 ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers: webHeaders(response.headers) }));
      });
      request.once("error", reject);
      request.end(init.body);
    });
  return { fetch, versions, close: () => agent?.destroy() };
}

/** Cleartext HTTP/2 with prior knowledge (h2c) on one session to `origin`. */
export function h2cFetch(origin: string): WireFetch {
  const versions = new Set<string>();
  let session: ClientHttp2Session | undefined;
  const open = () => {
    if (session === undefined || session.closed || session.destroyed) {
      session = http2Connect(origin);
      session.on("error", () => undefined);
    }
    return session;
  };
  const fetch: FetchLike = (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      const stream = open().request({
        ":method": init.method,
        ":path": `${target.pathname}${target.search}`,
        ...init.headers,
      });
      const onAbort = () => stream.close(http2Constants.NGHTTP2_CANCEL);
      init.signal?.addEventListener("abort", onAbort, { once: true });
      stream.once("close", () => init.signal?.removeEventListener("abort", onAbort));
      stream.once("response", (headers) => {
        versions.add("2.0");
        const status = Number(headers[":status"]);
        resolve(
          new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
            status,
            headers: webHeaders(headers),
          }),
        );
      });
      stream.once("error", reject);
      stream.end(init.body);
    });
  return {
    fetch,
    versions,
    close: () => {
      session?.close();
    },
  };
}

export function wireFetch(protocol: WireProtocol, origin: string): WireFetch {
  return protocol === "h1" ? http1Fetch() : h2cFetch(origin);
}
