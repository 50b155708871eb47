import type { IncomingMessage, ServerResponse } from "node:http";
import { clientRequestHead, relay } from "./relay.js";
import type { RelayContext } from "./relay.js";

const statusPathPrefix = "/_cursor-gateway/";

/** What the proxy tells `cursor-gateway doctor` (no secrets: ids, paths, counters). */
export type StatusHandler = (path: string) => Promise<{ status: number; body: unknown }>;

const loopbackHost = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;

/**
 * A plain (non-CONNECT) request to the proxy: an absolute-form `http://` URL is forwarded to that
 * host as it is (the IDE's plain-HTTP traffic keeps working with the proxy set); an origin-form
 * request is for the proxy itself (its status for `doctor`).
 */
export async function handlePlainRequest({
  req,
  res,
  status,
  context,
}: {
  req: IncomingMessage;
  res: ServerResponse;
  status: StatusHandler;
  context: RelayContext;
}): Promise<void> {
  const target = req.url ?? "/";
  if (target.startsWith("/")) return answerOwnRequest({ req, res, status });
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return text({ res, status: 400, body: "cursor-gateway proxy: not a URL\n" });
  }
  if (url.protocol !== "http:") {
    return text({
      res,
      status: 400,
      body: `cursor-gateway proxy: ${url.protocol} URLs go through CONNECT\n`,
    });
  }
  const head = clientRequestHead(req);
  return relay({
    req,
    res,
    head: { ...head, path: `${url.pathname}${url.search}`, authority: url.host },
    hop: "forward",
    origin: url.origin,
    context,
  });
}

async function answerOwnRequest({
  req,
  res,
  status,
}: {
  req: IncomingMessage;
  res: ServerResponse;
  status: StatusHandler;
}): Promise<void> {
  // A page in a browser must not read the proxy's status through a rebound DNS name.
  if (!loopbackHost.test(req.headers.host ?? "") || req.headers.origin !== undefined) {
    return text({ res, status: 403, body: "cursor-gateway proxy: loopback clients only\n" });
  }
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  if (req.method !== "GET" || !path.startsWith(statusPathPrefix)) {
    return text({
      res,
      status: 404,
      body: "cursor-gateway proxy: this is an HTTP proxy; set http.proxy to this address (cursor-gateway setup)\n",
    });
  }
  req.resume();
  const answer = await status(path.slice(statusPathPrefix.length));
  const body = `${JSON.stringify(answer.body, null, 2)}\n`;
  res.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "cache-control": "no-store",
  });
  res.end(body);
}

function text({ res, status, body }: { res: ServerResponse; status: number; body: string }): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
  });
  res.end(body);
}
