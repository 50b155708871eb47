import { gunzipSync } from "node:zlib";
import { ConnectError } from "./connect-error.js";
import type { EnvelopeCompression } from "./envelope.js";
import { EnvelopeDecoder, envelopeFlags, maxEnvelopeBytes } from "./envelope.js";

/** Request headers as any Node HTTP server gives them (lower-case names). */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

function headerValue(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return typeof value === "string" ? value : value?.[0];
}

/** Undoes an HTTP-level `content-encoding: gzip` (facts §1.5: the client sends such bodies). */
function decodeContentEncoding({
  body,
  headers,
}: {
  body: Uint8Array;
  headers: RequestHeaders;
}): Uint8Array {
  const encoding = (headerValue(headers, "content-encoding") ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return body;
  if (encoding !== "gzip") {
    throw new ConnectError({
      code: "unimplemented",
      message: `content-encoding ${encoding} is not supported (identity, gzip)`,
    });
  }
  try {
    return new Uint8Array(gunzipSync(body, { maxOutputLength: maxEnvelopeBytes }));
  } catch (error) {
    throw new ConnectError({
      code: "invalid_argument",
      message: "the body is not valid gzip or exceeds 64 MiB when decompressed",
      cause: error,
    });
  }
}

function streamCompression(headers: RequestHeaders): EnvelopeCompression {
  const encoding = (headerValue(headers, "connect-content-encoding") ?? "identity").toLowerCase();
  if (encoding === "identity") return "identity";
  if (encoding === "gzip") return "gzip";
  throw new ConnectError({
    code: "unimplemented",
    message: `connect-content-encoding ${encoding} is not supported (identity, gzip)`,
  });
}

/**
 * The message bytes of a unary Connect body: raw protobuf, or exactly one envelope whose length
 * is the rest of the body (facts §1.5). HTTP gzip is undone first.
 */
export function unaryMessageBytes({
  body,
  headers,
}: {
  body: Uint8Array;
  headers: RequestHeaders;
}): Uint8Array {
  if (body.length > maxEnvelopeBytes + 5) {
    throw new ConnectError({
      code: "resource_exhausted",
      message: `the body of ${body.length} bytes exceeds the limit of ${maxEnvelopeBytes} bytes`,
    });
  }
  const bytes = decodeContentEncoding({ body, headers });
  if (isSingleEnvelope(bytes)) return singleEnvelope({ body: bytes, headers });
  return bytes;
}

function isSingleEnvelope(bytes: Uint8Array): boolean {
  if (bytes.length < 5 || (bytes[0]! & ~envelopeFlags.compressed) !== 0) return false;
  const length = new DataView(bytes.buffer, bytes.byteOffset, 5).getUint32(1, false);
  return length === bytes.length - 5;
}

/**
 * The payload of a streaming request body that must hold exactly one data envelope (RunSSE's
 * `BidiRequestId`). A raw protobuf body is accepted as well (facts §1.3).
 */
export function singleMessageBytes({
  body,
  headers,
}: {
  body: Uint8Array;
  headers: RequestHeaders;
}): Uint8Array {
  const bytes = decodeContentEncoding({ body, headers });
  const contentType = headerValue(headers, "content-type") ?? "";
  if (!contentType.startsWith("application/connect+") && !isSingleEnvelope(bytes)) return bytes;
  return singleEnvelope({ body: bytes, headers });
}

function singleEnvelope({
  body,
  headers,
}: {
  body: Uint8Array;
  headers: RequestHeaders;
}): Uint8Array {
  const decoder = new EnvelopeDecoder({ compression: streamCompression(headers) });
  const frames = decoder.push(body);
  decoder.end();
  const data = frames.filter((frame) => (frame.flags & envelopeFlags.endStream) === 0);
  if (data.length !== 1) {
    throw new ConnectError({
      code: "invalid_argument",
      message: `expected one message envelope, got ${data.length}`,
    });
  }
  return data[0]!.payload;
}
