import { Readable } from "node:stream";
import Fastify from "fastify";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerFactory,
} from "fastify";
import type { GatewayConfig } from "../config.js";
import { createAuthenticator } from "./auth.js";
import type { Tenant } from "./auth.js";
import { conversationErrorResponse } from "./conversation-error-response.js";
import { HttpError, sendHttpError } from "./http-error.js";
import { defaultConnectionLimits } from "./connection-limits.js";
import type { ConnectionLimits } from "./connection-limits.js";
import { GatewayLogController } from "./request-log.js";
import type { GatewayMetrics } from "./metrics.js";
import { sseRunSink } from "./sse-run-sink.js";
import { SseStream } from "./sse-stream.js";
import { isUiFileRequest, registerUiRoutes } from "./ui-routes.js";
import { registerUsageRoutes } from "./usage-routes.js";
import { ConversationNotFoundError } from "../conversation-errors.js";
import type { ConversationService } from "../conversation-service.js";
import { defaultUsageRetentionDays } from "../config.js";
import { UsageReports } from "../usage/usage-reports.js";

export const maxBodyBytes = 32 * 1024 * 1024;

declare module "fastify" {
  interface FastifyRequest {
    tenant?: Tenant;
  }
}

export interface BuildAppOptions {
  readonly config: Pick<GatewayConfig, "tokens">;
  readonly service: ConversationService;
  readonly metrics: GatewayMetrics;
  /** A pino logger (see `createGatewayLogger`), pino options for Fastify, or `false` for none. */
  readonly logger?: boolean | object | FastifyBaseLogger;
  /** The port's connection limits (the SSE heartbeat follows its idle timeout). */
  readonly connections?: ConnectionLimits;
  /** The usage endpoints' answers; default: the service's store with the built-in prices. */
  readonly usage?: UsageReports;
  /** The built report page (dist/ui); default: found next to the gateway's code. */
  readonly uiFolder?: string;
  /**
   * The HTTP server the app runs on (Fastify's `serverFactory`); the gateway's serves the Cursor
   * wire's routes and HTTP/2 beside the JSON contract. Default: Fastify's own HTTP/1.1 server.
   */
  readonly serverFactory?: FastifyServerFactory;
}

const isLoggerInstance = (logger: unknown): logger is FastifyBaseLogger =>
  typeof logger === "object" &&
  logger !== null &&
  typeof (logger as { child?: unknown }).child === "function" &&
  typeof (logger as { info?: unknown }).info === "function";

/**
 * Bodies are validated with zod (the contract's error shape), never with route JSON schemas, so
 * Fastify's default compilers (ajv, fast-json-stringify) would only cost start-up time: a
 * restart after a crash is measurably faster without loading them.
 */
const noSchemaCompilers = {
  buildValidator: () => () => {
    throw new Error("the gateway's routes declare no JSON schemas (bodies are checked with zod)");
  },
  buildSerializer: () => () => {
    throw new Error("the gateway's routes declare no response schemas");
  },
};

const conversationIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

function conversationIdParam(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!conversationIdPattern.test(id)) {
    throw new HttpError(
      "invalid_request",
      "conversation id must be 1..128 characters of [A-Za-z0-9._:-]",
      [{ path: "conversationId", message: "1..128 characters of [A-Za-z0-9._:-]" }],
    );
  }
  return id;
}

/** The gateway's HTTP surface (docs/http-contract.md). */
export function buildApp(options: BuildAppOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: maxBodyBytes,
    ...(isLoggerInstance(options.logger)
      ? { loggerInstance: options.logger }
      : { logger: options.logger ?? false }),
    logController: new GatewayLogController(),
    ...(options.serverFactory === undefined ? {} : { serverFactory: options.serverFactory }),
    schemaController: { compilersFactory: noSchemaCompilers },
    // Conversation ids are up to 128 characters (Fastify's default limit is 100); a longer path
    // parameter is no conversation id: 400 in the contract's shape (below), never a bare 414.
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: (error, _request, reply) => {
      const issues =
        error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? [{ path: "conversationId", message: "1..128 characters of [A-Za-z0-9._:-]" }]
          : undefined;
      void sendHttpError(reply, new HttpError("invalid_request", error.message, issues));
    },
  });
  const authenticate = createAuthenticator(options.config.tokens);

  app.addHook("onRequest", async (request, reply) => {
    if (request.url === "/healthz" || request.url === "/metrics") return;
    // The report page's files hold no data; what it shows comes from the API, with a token.
    if (isUiFileRequest(request.url)) return;
    const tenant = authenticate(request.headers.authorization);
    if (tenant === undefined) {
      return sendHttpError(reply, new HttpError("unauthorized", "missing or unknown bearer token"));
    }
    request.tenant = tenant;
  });

  // Error bodies are diagnostics that may quote a provider's text: redacted like every other
  // byte that leaves (run events are redacted by the service, which every front door uses).
  app.addHook("onSend", async (_request, reply, payload) =>
    reply.statusCode >= 400 && typeof payload === "string"
      ? options.service.redactor.redact(payload)
      : payload,
  );

  // The idle timeout is the client's: it runs while a request is awaited or being received, not
  // while the gateway works on one it has whole (a provider SDK loading, a store lock). Node
  // restores it (through the keep-alive timeout) once the response is sent. An h2c connection
  // carries several streams at once and its idle timer is the raw socket's, which only the
  // connection's traffic moves (event streams send heartbeats): it is left running.
  app.addHook("preHandler", async (request) => {
    if (request.raw.httpVersionMajor !== 2) request.raw.socket?.setTimeout(0);
  });

  app.addHook("onResponse", async (request, reply) => {
    options.metrics.increment("cursor_gateway_http_requests_total", {
      route: request.routeOptions.url ?? "unmatched",
      status: String(reply.statusCode),
    });
  });

  // Only JSON bodies; anything else is 415 before it is read.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string", bodyLimit: maxBodyBytes },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch (error) {
        done(
          new HttpError("invalid_request", `body is not valid JSON: ${(error as Error).message}`),
          undefined,
        );
      }
    },
  );
  app.addContentTypeParser("*", (request, _payload, done) => {
    done(
      new HttpError(
        "unsupported_media_type",
        `content-type must be application/json, got ${request.headers["content-type"] ?? "none"}`,
      ),
      undefined,
    );
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof HttpError) return sendHttpError(reply, error);
    const refusal = conversationErrorResponse(error);
    if (refusal !== undefined) {
      if (refusal.status >= 500)
        request.log.error({ err: error }, "stored data failed verification");
      return sendHttpError(reply, refusal);
    }
    const code = (error as { code?: string }).code;
    if (code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return sendHttpError(reply, new HttpError("too_large", `body exceeds ${maxBodyBytes} bytes`));
    }
    if (code === "FST_ERR_CTP_EMPTY_JSON_BODY" || code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH") {
      return sendHttpError(reply, new HttpError("invalid_request", (error as Error).message));
    }
    if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return sendHttpError(
        reply,
        new HttpError("unsupported_media_type", "content-type must be application/json"),
      );
    }
    request.log.error({ err: error }, "unhandled error");
    return sendHttpError(reply, new HttpError("internal_error", "internal error"));
  });

  app.setNotFoundHandler((request, reply) =>
    sendHttpError(reply, new HttpError("not_found", `no route ${request.method} ${request.url}`)),
  );

  // Healthy when the store can serve (reads and writes), not merely when the process answers.
  app.get("/healthz", async (request, reply) => {
    try {
      await options.service.checkHealth();
      return { ok: true };
    } catch (error) {
      request.log.error({ err: error }, "health check failed");
      return reply.code(503).send({
        ok: false,
        error: { code: "unavailable", message: (error as Error).message },
      });
    }
  });

  app.get("/metrics", async (_request, reply) =>
    reply.type(options.metrics.contentType).send(await options.metrics.render()),
  );

  app.post("/v1/runs", async (request, reply) => {
    if (request.body === undefined) {
      throw new HttpError("unsupported_media_type", "content-type must be application/json");
    }
    const tenant = request.tenant!;
    // No signal: a client that drops the connection does not cancel the run; it finishes and
    // commits, and the client's retry replays it.
    const prepared = await options.service.prepareRun({ tenant, body: request.body });
    // From here on errors travel inside the stream (run.ended failed).
    reply.hijack();
    const stream = new SseStream(reply.raw, {
      heartbeatMs: (options.connections ?? defaultConnectionLimits).sseHeartbeatMs,
    });
    const sink = sseRunSink({
      stream,
      checkpoint:
        prepared.checkpointForm === "delta"
          ? {
              form: "delta",
              base: prepared.checkpointBase,
              encode: ({ head, promptSpecDigest }) =>
                options.service.issueCheckpointDelta({
                  tenant,
                  head,
                  base: prepared.checkpointBase,
                  promptSpecDigest,
                }),
            }
          : {
              form: "full",
              encode: ({ head, promptSpecDigest }) =>
                options.service.issueCheckpoint({ tenant, head, promptSpecDigest }),
            },
    });
    try {
      const outcome = await prepared.execute(sink);
      request.runSummary = `${prepared.conversationId}/${prepared.runId} ${outcome.reason}`;
    } finally {
      stream.end();
    }
  });

  app.post("/v1/conversations/:id/cancel", async (request) => {
    const conversationId = conversationIdParam(request);
    const tenant = request.tenant!;
    if (options.service.cancel({ tenant, conversationId })) return { cancelled: true };
    // Nothing to cancel: `false` for a conversation of this tenant, 404 for anyone else's (the
    // same answer as for one that does not exist, so a tenant learns nothing of others' ids).
    if (!(await options.service.knows({ tenant, conversationId }))) {
      throw new ConversationNotFoundError({ conversationId });
    }
    return { cancelled: false };
  });

  app.get("/v1/conversations/:id", async (request) => {
    const id = conversationIdParam(request);
    return options.service.summary({ tenant: request.tenant!, conversationId: id });
  });

  app.get("/v1/conversations/:id/checkpoint", async (request) => {
    const id = conversationIdParam(request);
    return options.service.fullCheckpoint({ tenant: request.tenant!, conversationId: id });
  });

  app.get("/v1/conversations/:id/history", async (request, reply) => {
    const id = conversationIdParam(request);
    // Streamed from the store's verified bytes: a history of large images is sent a piece at a
    // time, never decoded, so it does not hold up anyone else's request.
    const json = await options.service.historyJson({ tenant: request.tenant!, conversationId: id });
    return reply.type("application/json; charset=utf-8").send(Readable.from(json));
  });

  app.get(
    "/v1/conversations/:id/provider-requests",
    async (request: FastifyRequest, _reply: FastifyReply) => {
      const id = conversationIdParam(request);
      const { limit } = request.query as { limit?: string };
      const parsedLimit = limit === undefined ? 20 : Number(limit);
      if (!Number.isInteger(parsedLimit) || parsedLimit < 1 || parsedLimit > 1000) {
        throw new HttpError("invalid_request", "limit must be an integer from 1 to 1000", [
          { path: "limit", message: "an integer from 1 to 1000" },
        ]);
      }
      return options.service.providerRequests({
        tenant: request.tenant!,
        conversationId: id,
        limit: parsedLimit,
      });
    },
  );

  registerUsageRoutes(app, {
    reports:
      options.usage ??
      new UsageReports({
        store: options.service.store,
        retentionDays: defaultUsageRetentionDays,
      }),
    conversationIdParam,
    settled: (tenant) => options.service.recordsSettled({ tenant }),
  });

  registerUiRoutes(app, options.uiFolder === undefined ? {} : { folder: options.uiFolder });

  return app;
}
