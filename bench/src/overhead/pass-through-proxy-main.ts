import { createServer, request } from "node:http";
import type { IncomingHttpHeaders } from "node:http";

// The floor for any Node gateway: a bare HTTP proxy in its own process that pipes bytes both
// ways without parsing anything (no JSON, no SSE framing). `node pass-through-proxy-main.js
// <upstream origin>` listens on a free loopback port and prints `listening on <url>`.

const upstream = new URL(process.argv[2] ?? "");

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return { ...headers, host: upstream.host };
}

const server = createServer((incoming, outgoing) => {
  const proxied = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: incoming.method,
      path: incoming.url,
      headers: forwardedHeaders(incoming.headers),
    },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  proxied.on("error", () => {
    if (!outgoing.headersSent) outgoing.writeHead(502);
    outgoing.end();
  });
  incoming.pipe(proxied);
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
});
