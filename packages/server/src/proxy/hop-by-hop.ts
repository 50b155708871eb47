import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

export type HeaderMap = Record<string, string | string[]>;

/**
 * Headers that describe one connection, not the message (RFC 9110 7.6.1), plus what HTTP/2
 * forbids. `expect` is answered by the proxy's own server (100-continue) and must not make the
 * next hop wait again; `host` travels as the request's authority.
 */
const connectionHeaders = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "transfer-encoding",
  "upgrade",
  "http2-settings",
  "expect",
  "host",
]);

/**
 * The end-to-end headers of a request or response as the next hop must see them: pseudo-headers,
 * hop-by-hop headers and every header the `Connection` header names are dropped; `te` survives
 * only as `trailers` (the one value HTTP/2 allows, which gRPC-style servers need). Everything else
 * is kept as it came, names in lower case.
 */
export function endToEndHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): HeaderMap {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ""),
  );
  const result: HeaderMap = {};
  for (const [rawName, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const name = rawName.toLowerCase();
    if (name.startsWith(":") || connectionHeaders.has(name) || named.has(name)) continue;
    if (name === "te") {
      const values = String(value)
        .split(",")
        .map((part) => part.trim().toLowerCase());
      if (values.includes("trailers")) result.te = "trailers";
      continue;
    }
    result[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return result;
}
