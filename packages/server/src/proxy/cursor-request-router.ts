import {
  mergeAvailableModels,
  mergeUsableModels,
  peekRunRequest,
  peekRunSse,
  wireRoutes,
} from "@cursor/wire";
import type { WireModel } from "@cursor/wire";
import { BodyTooLargeError, decodeContent, readBody, sendProxyError } from "./exchange.js";
import type { ClientRequest, ClientResponse } from "./exchange.js";
import type { HopResponse } from "./hop-client.js";
import type { HeaderMap } from "./hop-by-hop.js";
import { answerHopFailure, clientGone, clientRequestHead, relay } from "./relay.js";
import type { ClientRequestHead, Hop, RelayContext } from "./relay.js";
import { RunHoldError } from "./run-route-table.js";
import type { RunRouteTable, RunTarget } from "./run-route-table.js";

/** A RunSSE body is one BidiRequestId, a model-list request a few flags; neither comes near this. */
const smallBodyLimit = 64 * 1024;
/** The wire's frame cap (cursor-wire.md, "Bad input"). */
const appendBodyLimit = 64 * 1024 * 1024;
const modelListLimit = 64 * 1024 * 1024;

export interface CursorRouterOptions extends RelayContext {
  readonly routes: RunRouteTable;
  /** The configured BYOK models (added to Cursor's model lists), read on every list. */
  readonly byokModels: () => readonly WireModel[];
  /** The configured BYOK model ids: a run for one of them is served by the gateway. */
  readonly isByokModel: (modelId: string) => boolean;
  /** `http://host:port` of the gateway's own HTTP server. */
  readonly gatewayOrigin: string;
}

/**
 * Routes one request the proxy decrypted on a Cursor host. Runs for a BYOK model (RunSSE and
 * every BidiAppend of the run) go to the gateway, model lists are Cursor's with the BYOK models
 * added, and everything else goes to Cursor unchanged.
 */
export async function routeCursorRequest({
  req,
  res,
  cursorOrigin,
  options,
}: {
  req: ClientRequest;
  res: ClientResponse;
  /** Where this connection's relayed requests go. */
  cursorOrigin: string;
  options: CursorRouterOptions;
}): Promise<void> {
  const head = clientRequestHead(req);
  const path = head.path.split("?")[0];
  const route = { req, res, head, cursorOrigin, options };
  if (head.method === "POST") {
    if (path === wireRoutes.runSse) return routeRunSse(route);
    if (path === wireRoutes.bidiAppend) return routeAppend(route);
    if (path === wireRoutes.availableModels) return mergeModelList({ ...route, list: "available" });
    if ((wireRoutes.getUsableModels as readonly string[]).includes(path ?? "")) {
      return mergeModelList({ ...route, list: "usable" });
    }
  }
  return relay({ req, res, head, hop: "cursor", origin: cursorOrigin, context: options });
}

interface Route {
  readonly req: ClientRequest;
  readonly res: ClientResponse;
  readonly head: ClientRequestHead;
  readonly cursorOrigin: string;
  readonly options: CursorRouterOptions;
}

/** Reads a body the proxy must look into; answers the client itself when it cannot. */
async function readRoutedBody({
  route,
  limit,
}: {
  route: Route;
  limit: number;
}): Promise<{ raw: Buffer; decoded: Uint8Array | undefined } | undefined> {
  try {
    const raw = await readBody({ req: route.req, limit });
    return {
      raw,
      decoded: await decodeContent({
        body: raw,
        contentEncoding: route.head.headers["content-encoding"],
      }),
    };
  } catch (error) {
    if (BodyTooLargeError.isInstance(error)) {
      route.options.stats.value.requests.failed += 1;
      sendProxyError({
        res: route.res,
        status: 413,
        code: "resource_exhausted",
        message: error.message,
      });
    }
    return undefined;
  }
}

function relayTo({ route, target, body }: { route: Route; target: RunTarget; body: Uint8Array }) {
  const hop: Hop = target;
  return relay({
    req: route.req,
    res: route.res,
    head: route.head,
    hop,
    origin: hop === "gateway" ? route.options.gatewayOrigin : route.cursorOrigin,
    body,
    context: route.options,
  });
}

/** Waits for the run's decision; undefined (the client already answered) when it cannot. */
async function awaitDecision({ route, requestId }: { route: Route; requestId: string }) {
  try {
    const decision = await route.options.routes.waitFor(requestId, clientGone(route.res));
    if (decision.timedOut) route.options.stats.value.requests.runsTimedOut += 1;
    return decision.target;
  } catch (error) {
    if (RunHoldError.isInstance(error) && error.reason !== "aborted") {
      route.options.stats.value.requests.failed += 1;
      sendProxyError({
        res: route.res,
        status: 503,
        code: error.reason === "too-many-held" ? "resource_exhausted" : "unavailable",
        message: error.message,
      });
    }
    return undefined;
  }
}

/** The request id of a RunSSE body; undefined when it is not one (it then goes to Cursor). */
function runSseRequestId(body: Uint8Array): string | undefined {
  try {
    return peekRunSse(body).requestId;
  } catch {
    return undefined;
  }
}

/**
 * What a BidiAppend body says about routing: its request id, and the model its run request
 * names (when it carries one). Undefined when the body is not a BidiAppend (it goes to Cursor,
 * which answers it); an unreadable model selection names no BYOK model.
 */
function peekAppend(
  body: Uint8Array,
): { requestId: string; runRequest?: { modelId: string } } | undefined {
  let peeked;
  try {
    peeked = peekRunRequest(body);
  } catch {
    return undefined;
  }
  if (peeked.requestId === "") return undefined;
  return {
    requestId: peeked.requestId,
    ...(peeked.runRequest === undefined
      ? {}
      : { runRequest: { modelId: peeked.runRequest.modelId } }),
  };
}

/**
 * A run's model is only known from its first append, and the IDE may open the RunSSE first:
 * the RunSSE waits here until that append decides the run, then goes where the run goes.
 */
async function routeRunSse(route: Route): Promise<void> {
  const body = await readRoutedBody({ route, limit: smallBodyLimit });
  if (body === undefined) return;
  const requestId = body.decoded === undefined ? undefined : runSseRequestId(body.decoded);
  if (requestId === undefined) return relayTo({ route, target: "cursor", body: body.raw });
  const target = await awaitDecision({ route, requestId });
  if (target === undefined) return;
  return relayTo({ route, target, body: body.raw });
}

async function routeAppend(route: Route): Promise<void> {
  const body = await readRoutedBody({ route, limit: appendBodyLimit });
  if (body === undefined) return;
  const peek = body.decoded === undefined ? undefined : peekAppend(body.decoded);
  if (peek === undefined) return relayTo({ route, target: "cursor", body: body.raw });
  const { routes, stats, logger, isByokModel } = route.options;
  let target = routes.target(peek.requestId);
  if (target === undefined && peek.runRequest !== undefined) {
    const wanted: RunTarget = isByokModel(peek.runRequest.modelId) ? "gateway" : "cursor";
    target = routes.decide(peek.requestId, wanted);
    if (target === wanted) {
      if (target === "gateway") stats.value.requests.runsToGateway += 1;
      else stats.value.requests.runsToCursor += 1;
      logger.info(
        { requestId: peek.requestId, model: peek.runRequest.modelId, target },
        target === "gateway"
          ? "proxy: BYOK run, served by the gateway"
          : "proxy: Cursor run, relayed",
      );
    }
  }
  // An append that arrives before its run's first one (appends are sent concurrently) waits.
  target ??= await awaitDecision({ route, requestId: peek.requestId });
  if (target === undefined) return;
  return relayTo({ route, target, body: body.raw });
}

async function readAll(response: HopResponse, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response.body) {
    length += (chunk as Buffer).length;
    if (length > limit) {
      response.body.destroy();
      throw new BodyTooLargeError({ limit });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

function isProto(headers: HeaderMap): boolean {
  return (
    String(headers["content-type"] ?? "")
      .split(";")[0]
      ?.trim() === "application/proto"
  );
}

/**
 * The model list: Cursor's own reply with the BYOK models added (by the wire's encoders, from the
 * configured models, so no gateway call is needed). Cursor's answer is never invented: if Cursor
 * fails, the client sees that failure; if its reply cannot be merged, the client gets it unchanged
 * (and the log says why).
 */
async function mergeModelList({ list, ...route }: Route & { list: "available" | "usable" }) {
  const { options, res, head } = route;
  const body = await readRoutedBody({ route, limit: smallBodyLimit });
  if (body === undefined) return;
  options.stats.value.requests.cursor += 1;
  options.stats.value.bytes.cursor.sent += body.raw.length;
  let cursor: HopResponse;
  let cursorBody: Buffer;
  try {
    cursor = await options.hops.request({
      origin: route.cursorOrigin,
      protocol: head.protocol,
      method: head.method,
      path: head.path,
      authority: head.authority,
      headers: head.headers,
      body: body.raw,
      signal: clientGone(res),
    });
    cursorBody = await readAll(cursor, modelListLimit);
  } catch (error) {
    answerHopFailure({ res, hop: "cursor", error, context: options });
    return;
  }
  options.stats.value.bytes.cursor.received += cursorBody.length;
  const unchanged = (reason: string) => {
    options.logger.warn({ list, reason }, "proxy: model list relayed without the BYOK models");
    res.sendDate = false;
    res.writeHead(cursor.status, cursor.headers);
    res.end(cursorBody);
  };
  if (cursor.status !== 200 || !isProto(cursor.headers)) {
    // Not a model list (an error, a JSON reply): Cursor's answer as it is, nothing to merge.
    res.sendDate = false;
    res.writeHead(cursor.status, cursor.headers);
    res.end(cursorBody);
    return;
  }
  const cursorList = await decodeContent({
    body: cursorBody,
    contentEncoding: cursor.headers["content-encoding"],
  });
  if (cursorList === undefined) return unchanged("unknown content encoding");
  let merged: Uint8Array;
  try {
    const models = options.byokModels();
    merged =
      list === "available"
        ? mergeAvailableModels({ cursor: cursorList, models })
        : mergeUsableModels({ cursor: cursorList, models });
  } catch (error) {
    return unchanged((error as Error).message);
  }
  options.stats.value.requests.modelListsMerged += 1;
  const headers: HeaderMap = { ...cursor.headers, "content-length": String(merged.length) };
  delete headers["content-encoding"];
  res.sendDate = false;
  res.writeHead(200, headers);
  res.end(merged);
}
