import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { ConnectError, maxEnvelopeBytes, unaryErrorReply, wireRoutes } from "@cursor/wire";
import type { CursorWire, UnaryReply, WireLogger } from "@cursor/wire";

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;

/** What both Node response kinds offer that the handler uses (their unions do not type-check). */
interface ResponseWriter {
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  write(chunk: Uint8Array): unknown;
  end(chunk?: Uint8Array): unknown;
  once(event: "close", listener: () => void): unknown;
}

function writer(response: AnyResponse): ResponseWriter {
  return response as unknown as ResponseWriter;
}

type WireRoute = "runSse" | "bidiAppend" | "availableModels" | "getUsableModels";

const routes: ReadonlyMap<string, WireRoute> = new Map([
  [wireRoutes.runSse, "runSse"],
  [wireRoutes.bidiAppend, "bidiAppend"],
  [wireRoutes.availableModels, "availableModels"],
  ...wireRoutes.getUsableModels.map((path) => [path, "getUsableModels"] as const),
]);

/**
 * Largest request body per route. BidiAppend carries one `AgentClientMessage` as hex (twice its
 * size) of up to 64 MiB; the others carry a request id or nothing.
 */
const maxBodyBytes: Readonly<Record<WireRoute, number>> = {
  runSse: 64 * 1024,
  bidiAppend: 2 * maxEnvelopeBytes + 64 * 1024,
  availableModels: 1024 * 1024,
  getUsableModels: 1024 * 1024,
};

/** Connect's binary content types (cursor-wire-facts.md §1.5); parameters are ignored. */
const contentTypes = new Set(["application/proto", "application/connect+proto"]);

/** Headers never handed to the wire: the IDE's Cursor session token and cookies. */
const withheldHeaders = new Set(["authorization", "cookie", "proxy-authorization"]);

/** The route of a request path (query ignored), or undefined when it is not a wire route. */
export function wireRouteOf(url: string | undefined): WireRoute | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf("?");
  return routes.get(query === -1 ? url : url.slice(0, query));
}

export interface WireHttpHandler {
  /** True when the request is for one of the wire's routes (then `handle` answers it). */
  matches(request: AnyRequest): boolean;
  handle(request: AnyRequest, response: AnyResponse): Promise<void>;
}

/**
 * Serves the Cursor wire's routes on a Node HTTP/1.1 or HTTP/2 request: checks method, content
 * type and size, reads the body, hands it to the wire without the IDE's credentials, and writes
 * the wire's answer (RunSSE streamed as it comes). `disabledReason` set: every wire route answers
 * `permission_denied` with it.
 */
export function createWireHttpHandler({
  wire,
  logger,
  disabledReason,
}: {
  wire: CursorWire;
  logger: WireLogger;
  disabledReason?: string;
}): WireHttpHandler {
  async function handle(request: AnyRequest, response: AnyResponse): Promise<void> {
    const route = wireRouteOf(request.url);
    if (route === undefined) throw new Error(`not a wire route: ${request.url}`);
    const refusal = refuse(request, route, disabledReason);
    if (refusal !== undefined) {
      // The body is read to its end so an HTTP/1.1 connection stays usable.
      await readBody(request, 0);
      return sendUnary(response, unaryErrorReply(refusal));
    }
    const body = await readBody(request, maxBodyBytes[route]);
    if (body === undefined) {
      return sendUnary(
        response,
        unaryErrorReply(
          new ConnectError({
            code: "resource_exhausted",
            message: `the request body exceeds ${maxBodyBytes[route]} bytes`,
          }),
        ),
      );
    }
    const headers = wireHeaders(request);
    switch (route) {
      case "runSse":
        return runSse({ headers, body, response });
      case "bidiAppend":
        return sendUnary(response, await wire.bidiAppend({ headers, body }));
      case "availableModels":
        return sendUnary(response, wire.availableModels({ headers, body }));
      case "getUsableModels":
        return sendUnary(response, wire.getUsableModels({ headers, body }));
      default: {
        const exhaustive: never = route;
        throw new Error(`unknown wire route ${String(exhaustive)}`);
      }
    }
  }

  async function runSse({
    headers,
    body,
    response,
  }: {
    headers: Record<string, string | string[]>;
    body: Uint8Array;
    response: AnyResponse;
  }): Promise<void> {
    const out = writer(response);
    const gone = new AbortController();
    let open = true;
    out.once("close", () => {
      open = false;
      gone.abort(new Error("the client closed the RunSSE stream"));
    });
    await wire.runSse({
      headers,
      body,
      signal: gone.signal,
      response: {
        start: (status, values) => {
          if (!open) return;
          out.writeHead(status, { ...values });
          // The IDE waits for the status line before it appends: send it now.
          out.flushHeaders();
        },
        write: (chunk) => {
          if (open) out.write(chunk);
        },
        end: () => {
          if (open) out.end();
        },
      },
    });
  }

  return {
    matches: (request) => wireRouteOf(request.url) !== undefined,
    handle: async (request, response) => {
      try {
        await handle(request, response);
      } catch (error) {
        logger.error(
          {
            route: wireRouteOf(request.url),
            err: error instanceof Error ? error.message : String(error),
          },
          "a Cursor wire request failed",
        );
        const out = writer(response);
        if (!out.headersSent) {
          sendUnary(
            response,
            unaryErrorReply(new ConnectError({ code: "internal", message: "internal error" })),
          );
        } else if (!out.writableEnded) out.end();
      }
    },
  };
}

function refuse(
  request: AnyRequest,
  route: WireRoute,
  disabledReason: string | undefined,
): ConnectError | undefined {
  if (disabledReason !== undefined) {
    return new ConnectError({ code: "permission_denied", message: disabledReason });
  }
  if (request.method !== "POST") {
    return new ConnectError({
      code: "unimplemented",
      message: `${routeName(route)} takes POST, not ${request.method ?? "no method"}`,
    });
  }
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (!contentTypes.has(type)) {
    return new ConnectError({
      code: "unimplemented",
      message: `content-type must be application/proto or application/connect+proto, got ${type === "" ? "none" : type}`,
    });
  }
  return undefined;
}

function routeName(route: WireRoute): string {
  return route === "runSse"
    ? wireRoutes.runSse
    : route === "bidiAppend"
      ? wireRoutes.bidiAppend
      : route;
}

/** The request's headers for the wire: lower-case names, no pseudo-headers, no credentials. */
function wireHeaders(request: AnyRequest): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || lower.startsWith(":") || withheldHeaders.has(lower)) continue;
    headers[lower] = value;
  }
  return headers;
}

/** The whole body, or undefined when it is longer than `limit` (read to its end either way). */
function readBody(request: AnyRequest, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let tooLong = false;
    request.on("data", (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        tooLong = true;
        chunks.length = 0;
      }
      if (!tooLong) chunks.push(chunk);
    });
    request.once("end", () => resolve(tooLong ? undefined : new Uint8Array(Buffer.concat(chunks))));
    request.once("error", reject);
  });
}

function sendUnary(response: AnyResponse, reply: UnaryReply): void {
  const out = writer(response);
  if (out.headersSent) return;
  out.writeHead(reply.status, { ...reply.headers, "content-length": String(reply.body.length) });
  out.end(reply.body);
}
