import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { promisify } from "node:util";
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import { CursorError } from "@cursor/run";

/** A request the proxy's TLS-terminating server received, over HTTP/1.1 or HTTP/2. */
export type ClientRequest = IncomingMessage | Http2ServerRequest;
export type ClientResponse = ServerResponse | Http2ServerResponse;

/** Connect error codes the proxy answers with (connectrpc.com/docs/protocol). */
export type ProxyErrorCode = "unavailable" | "resource_exhausted" | "invalid_argument" | "internal";

/**
 * Answers a request the proxy could not pass on, in Connect's unary error shape, so the IDE shows
 * the message. When the answer has already started, the only honest signal left is to cut it.
 */
export function sendProxyError({
  res,
  status,
  code,
  message,
}: {
  res: ClientResponse;
  status: number;
  code: ProxyErrorCode;
  message: string;
}): void {
  if (res.headersSent) {
    destroyResponse(res);
    return;
  }
  const body = JSON.stringify({ code, message: `cursor-gateway proxy: ${message}` });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
    "x-cursor-gateway-proxy-error": code,
  });
  res.end(body);
}

/** Cuts a response: HTTP/2 resets the stream, HTTP/1.1 closes the connection. */
export function destroyResponse(res: ClientResponse): void {
  if ("stream" in res) {
    if (!res.stream.destroyed) res.stream.close(0x2 /* INTERNAL_ERROR */);
    return;
  }
  res.destroy();
}

const bodyLimitMarker = Symbol.for("cursor.error.proxy-body-limit");
/** A request body the proxy must read (to route it) is over its limit. */
export class BodyTooLargeError extends CursorError {
  readonly [bodyLimitMarker] = true;
  readonly limit: number;
  constructor({ limit }: { limit: number }) {
    super({ name: "BodyTooLargeError", message: `the request body is over ${limit} bytes` });
    this.limit = limit;
  }
  static override isInstance(error: unknown): error is BodyTooLargeError {
    return typeof error === "object" && error !== null && bodyLimitMarker in error;
  }
}

/** The whole request body, refusing more than `limit` bytes. */
export function readBody({ req, limit }: { req: ClientRequest; limit: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) {
      reject(new BodyTooLargeError({ limit }));
      return;
    }
    req.on("data", (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        req.removeAllListeners("data");
        req.resume();
        reject(new BodyTooLargeError({ limit }));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks, length)));
    req.on("error", reject);
    req.on("aborted", () => reject(new Error("the client went away")));
  });
}

const decoders = {
  gzip: promisify(gunzip),
  "x-gzip": promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
} as const;

/**
 * A body without its HTTP content coding, for reading only (the bytes relayed stay as they
 * came). Undefined for a coding the proxy does not know.
 */
export async function decodeContent({
  body,
  contentEncoding,
}: {
  body: Uint8Array;
  contentEncoding: string | string[] | undefined;
}): Promise<Uint8Array | undefined> {
  const codings = String(contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  let decoded = body;
  // Codings apply in the order listed, so they are undone in reverse.
  for (const coding of codings.reverse()) {
    if (!(coding in decoders)) return undefined;
    try {
      decoded = await decoders[coding as keyof typeof decoders](decoded);
    } catch {
      return undefined;
    }
  }
  return decoded;
}
