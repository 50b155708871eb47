import { LogController } from "fastify";
import type { FastifyReply, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** What the request log line adds about a run (`c-1/r-1 awaiting-tools`). */
    runSummary?: string;
  }
}

// Probes: a load balancer or Prometheus asks every few seconds; at info level they would drown
// the lines that matter.
const quietPaths = new Set(["/healthz", "/metrics"]);

/**
 * One log line per request, when it has been answered: method, path, status, milliseconds and,
 * for a run, its conversation, run id and how it ended. `/healthz` and `/metrics` log at debug
 * level, everything else at info (5xx at error). Fastify's own two lines per request (incoming,
 * completed) and its "route not found" line are replaced by this one.
 */
export class GatewayLogController extends LogController {
  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const path = request.url.split("?")[0] ?? request.url;
    const status = reply.statusCode;
    const entry = {
      req: { method: request.method, url: request.url },
      res: { statusCode: status },
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(request.runSummary === undefined ? {} : { run: request.runSummary }),
      ...(error ? { err: error } : {}),
    };
    if (status >= 500 || error) reply.log.error(entry, "request");
    else if (quietPaths.has(path)) reply.log.debug(entry, "request");
    else reply.log.info(entry, "request");
  }
}
