import { Transform } from "node:stream";
import type { Readable } from "node:stream";
import { destroyResponse, sendProxyError } from "./exchange.js";
import type { ClientRequest, ClientResponse } from "./exchange.js";
import { HopError } from "./hop-client.js";
import type { HopClient, HopRequest, HopResponse } from "./hop-client.js";
import { endToEndHeaders } from "./hop-by-hop.js";
import type { HeaderMap } from "./hop-by-hop.js";
import type { ByteCount, ProxyLogger, ProxyStats } from "./proxy-stats.js";

/**
 * Where a request goes: Cursor's servers, the gateway in this process, or (plain-HTTP proxy
 * requests) the host the client named.
 */
export type Hop = "cursor" | "gateway" | "forward";

export interface RelayContext {
  readonly hops: HopClient;
  readonly stats: ProxyStats;
  readonly logger: ProxyLogger;
}

/** A request's method, path, authority and end-to-end headers as the client sent them. */
export interface ClientRequestHead {
  readonly method: string;
  readonly path: string;
  readonly authority: string;
  readonly headers: HeaderMap;
  readonly protocol: "h1" | "h2";
}

export function clientRequestHead(req: ClientRequest): ClientRequestHead {
  const h2 = "stream" in req;
  const authority = String((h2 ? req.headers[":authority"] : undefined) ?? req.headers.host ?? "");
  return {
    method: req.method ?? "GET",
    path: req.url ?? "/",
    authority,
    headers: endToEndHeaders(req.headers),
    protocol: h2 ? "h2" : "h1",
  };
}

/** Counts the bytes of a stream as they pass (pipe-based, so backpressure holds). */
function counted({
  source,
  onBytes,
}: {
  source: Readable;
  onBytes: (n: number) => void;
}): Readable {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes(chunk.length);
      done(null, chunk);
    },
  });
  source.on("error", (error) => counter.destroy(error));
  return source.pipe(counter);
}

/** A signal that fires when the client goes away before its answer is complete. */
export function clientGone(res: ClientResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    // Ended by the proxy (not necessarily flushed) means complete; anything else is the client
    // going away. (`writableFinished` cannot tell: HTTP/2's compat layer sets it on a reset.)
    if (!res.writableEnded) controller.abort();
  });
  return controller.signal;
}

function describeHopFailure({ hop, error }: { hop: Hop; error: HopError }): string {
  switch (hop) {
    case "gateway":
      return `the gateway at ${error.origin} did not answer: ${error.message}; is cursor-gateway running?`;
    case "cursor":
      return `Cursor's server did not answer: ${error.message}`;
    case "forward":
      return error.message;
    default: {
      const exhaustive: never = hop;
      return String(exhaustive);
    }
  }
}

/** Answers the client with a hop failure and counts it. */
export function answerHopFailure({
  res,
  hop,
  error,
  context,
}: {
  res: ClientResponse;
  hop: Hop;
  error: unknown;
  context: RelayContext;
}): void {
  context.stats.value.requests.failed += 1;
  if (!HopError.isInstance(error)) {
    context.logger.error({ hop, error: String(error) }, "proxy: relay failed");
    sendProxyError({ res, status: 502, code: "internal", message: `relay to ${hop} failed` });
    return;
  }
  if (error.message === "the client went away") return;
  context.logger.warn(
    { hop, origin: error.origin, kind: error.kind, code: error.code },
    "proxy: hop failed",
  );
  sendProxyError({
    res,
    status: error.kind === "timeout" ? 504 : 502,
    code: "unavailable",
    message: describeHopFailure({ hop, error }),
  });
}

/**
 * Sends one request on and streams the answer back unchanged (status, end-to-end headers, body,
 * trailers), with backpressure both ways; a client that goes away cancels the hop's request.
 */
export async function relay({
  req,
  res,
  head,
  hop,
  origin,
  body,
  context,
}: {
  req: ClientRequest;
  res: ClientResponse;
  head: ClientRequestHead;
  hop: Hop;
  origin: string;
  /** A body already read (to route it); otherwise the client's body streams through. */
  body?: Uint8Array;
  context: RelayContext;
}): Promise<void> {
  const bytes = context.stats.value.bytes[hop];
  context.stats.value.requests[hop] += 1;
  const signal = clientGone(res);
  let response: HopResponse;
  try {
    response = await context.hops.request({
      origin,
      protocol: head.protocol,
      method: head.method,
      path: head.path,
      authority: hop === "gateway" ? new URL(origin).host : head.authority,
      headers: hop === "gateway" ? withoutCursorCredentials(head.headers) : head.headers,
      body:
        body === undefined
          ? counted({ source: req, onBytes: (n) => (bytes.sent += n) })
          : countOnce({ body, bytes }),
      signal,
    } satisfies HopRequest);
  } catch (error) {
    answerHopFailure({ res, hop, error, context });
    return;
  }
  await streamResponse({ res, response, bytes, signal });
}

function countOnce({ body, bytes }: { body: Uint8Array; bytes: ByteCount }): Uint8Array {
  bytes.sent += body.length;
  return body;
}

/**
 * The IDE's Cursor session (`authorization`, cookies) is for Cursor: the gateway never needs it
 * and never sees it, so it cannot be logged or stored there by mistake.
 */
function withoutCursorCredentials(headers: HeaderMap): HeaderMap {
  const result: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === "authorization" || name === "cookie") continue;
    result[name] = value;
  }
  return result;
}

/** Writes a hop's answer to the client as it arrives. */
function streamResponse({
  res,
  response,
  bytes,
  signal,
}: {
  res: ClientResponse;
  response: HopResponse;
  bytes: ByteCount;
  signal: AbortSignal;
}): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) {
      response.body.destroy();
      resolve();
      return;
    }
    // The hop's own Date (if any) is passed on; the proxy adds none.
    res.sendDate = false;
    try {
      res.writeHead(response.status, response.headers);
    } catch (error) {
      // A header the client's protocol cannot carry: the answer cannot be relayed unchanged.
      response.body.destroy();
      sendProxyError({
        res,
        status: 502,
        code: "internal",
        message: `Cursor's answer cannot be relayed: ${(error as Error).message}`,
      });
      resolve();
      return;
    }
    // Send the head now: a streaming answer (RunSSE) must reach the IDE before its first frame.
    if ("flushHeaders" in res) res.flushHeaders();
    const onClientGone = () => response.body.destroy();
    signal.addEventListener("abort", onClientGone, { once: true });
    response.body.on("data", (chunk: Buffer) => {
      bytes.received += chunk.length;
    });
    response.body.on("error", () => {
      signal.removeEventListener("abort", onClientGone);
      // The hop broke off mid-answer: cut the client's answer too rather than end it cleanly.
      destroyResponse(res);
      resolve();
    });
    response.body.on("end", async () => {
      signal.removeEventListener("abort", onClientGone);
      if (!(await response.endedCleanly())) {
        destroyResponse(res);
        resolve();
        return;
      }
      const trailers = response.trailers();
      const canCarryTrailers = "stream" in res || !res.hasHeader("content-length");
      if (Object.keys(trailers).length > 0 && canCarryTrailers) res.addTrailers(trailers);
      res.end();
      resolve();
    });
    response.body.pipe(res as NodeJS.WritableStream, { end: false });
    res.once("close", () => resolve());
  });
}
