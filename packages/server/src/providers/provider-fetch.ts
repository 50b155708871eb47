import http from "node:http";
import type { IncomingMessage } from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { JsonBodyStream } from "@cursor/run";

type Fetch = typeof globalThis.fetch;

// Statuses whose response has no body (a `Response` refuses one for them).
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * The HTTP client the gateway hands the provider SDKs (their `fetch` option): the SDK still
 * builds every request and parses every response; this only moves the bytes. Node's built-in
 * `fetch` (undici) turns a string body into a web byte stream, copies it chunk by chunk and
 * writes it through an async iterator; on the gateway's hot path that cost about 1 ms of CPU per
 * call at 80 kB, and grows with the body (bench, `--only overhead`). Here a request is one
 * `node:http(s)` request with keep-alive agents: a string or byte body is written as it is, the
 * response body is the socket's stream as a web stream.
 *
 * A provider package's `JsonBodyStream` (a body's JSON bytes in pieces) is written piece by piece
 * with its `content-length`, never read as a web stream and never joined: a body the size of the
 * conversation is not flattened and encoded in one go (json-body.ts in @cursor/run).
 *
 * Only what the SDKs send takes this path (a URL string and a string, byte, JSON-pieces or empty
 * body); anything else (a `Request`, another stream, a form body) goes to `globalThis.fetch`
 * unchanged. A
 * compressed response (a server may compress even unasked) is inflated, as `fetch` does. The
 * signal aborts the request and its body, as it does with `fetch`.
 */
export function createProviderFetch({
  ca,
}: {
  /** Extra trusted certificates (PEM) for HTTPS; `NODE_EXTRA_CA_CERTS` works as well. */
  ca?: string;
} = {}): Fetch {
  const agents = {
    "http:": new http.Agent({ keepAlive: true }),
    "https:": new https.Agent({ keepAlive: true, ...(ca === undefined ? {} : { ca }) }),
  };
  const providerFetch = (input: Parameters<Fetch>[0], init?: RequestInit): Promise<Response> => {
    const body = init?.body;
    const plainBody =
      body === undefined ||
      body === null ||
      typeof body === "string" ||
      body instanceof Uint8Array ||
      JsonBodyStream.isInstance(body);
    const url = typeof input === "string" || input instanceof URL ? new URL(input) : undefined;
    if (
      url === undefined ||
      !plainBody ||
      (url.protocol !== "http:" && url.protocol !== "https:")
    ) {
      return globalThis.fetch(input, init);
    }
    return send({
      url,
      init: init ?? {},
      body: (body ?? undefined) as string | Uint8Array | JsonBodyStream | undefined,
      agent: agents[url.protocol],
    });
  };
  return providerFetch as Fetch;
}

function send({
  url,
  init,
  body,
  agent,
}: {
  url: URL;
  init: RequestInit;
  body: string | Uint8Array | JsonBodyStream | undefined;
  agent: http.Agent;
}): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const method = (init.method ?? "GET").toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const pieces = JsonBodyStream.isInstance(body) ? body.takePieces() : undefined;
  // Pieces leave in several writes, so their length is said up front (no chunked encoding).
  if (pieces !== undefined) headers["content-length"] = String((body as JsonBodyStream).byteLength);
  // No content-length here: `end(body)` sets it from the one length Node computes anyway (for a
  // megabyte string a second pass over it costs about a millisecond).
  const request = (url.protocol === "https:" ? https : http).request(url, {
    method,
    headers,
    agent,
  });
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      const reason = abortReason(signal!);
      // Before the response: the promise rejects; after it: its body errors (the reader sees it).
      if (!settled) {
        settled = true;
        reject(reason);
      }
      request.destroy(reason instanceof Error ? reason : undefined);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => signal?.removeEventListener("abort", onAbort);
    request.once("error", (error) => {
      done();
      if (settled) return;
      settled = true;
      reject(error);
    });
    request.once("response", (response) => {
      if (settled) {
        response.destroy();
        return;
      }
      settled = true;
      response.once("close", done);
      try {
        resolve(toResponse({ response, url, method }));
      } catch (error) {
        response.destroy();
        reject(error);
      }
    });
    if (pieces === undefined) {
      request.end(body);
    } else {
      // Buffered until the socket is ready, then written together (one `writev` where it fits).
      for (const piece of pieces) request.write(piece);
      request.end();
    }
  });
}

function toResponse({
  response,
  url,
  method,
}: {
  response: IncomingMessage;
  url: URL;
  method: string;
}): Response {
  const status = response.statusCode ?? 0;
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  let body: ReadableStream<Uint8Array> | null = null;
  if (method === "HEAD" || nullBodyStatuses.has(status)) {
    response.resume();
  } else {
    body = Readable.toWeb(decoded(response)) as ReadableStream<Uint8Array>;
  }
  const result = new Response(body, {
    status,
    statusText: response.statusMessage ?? "",
    headers,
  });
  // `Response.url` is read-only and empty for a constructed response; the SDKs log it.
  Object.defineProperty(result, "url", { value: url.href });
  return result;
}

/** The body as sent, inflated when the server compressed it. */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const inflate =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (inflate === undefined) return response;
  response.once("error", (error) => inflate.destroy(error));
  // A connection that ends mid-body must fail the read, not end it cleanly.
  response.once("aborted", () => inflate.destroy(abortedError()));
  return response.pipe(inflate);
}

function abortedError(): Error {
  return Object.assign(new Error("aborted"), { code: "ECONNRESET" });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
