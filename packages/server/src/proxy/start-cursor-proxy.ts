import { createServer } from "node:http";
import type { IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { isLoopbackHost } from "../config.js";
import { isCursorHost, parseConnectTarget } from "./connect-target.js";
import { routeCursorRequest } from "./cursor-request-router.js";
import { HopClient } from "./hop-client.js";
import { CursorInterceptor } from "./intercept-connection.js";
import { handlePlainRequest } from "./plain-request.js";
import type { ProxyCertificateAuthority } from "./proxy-ca.js";
import { ProxyStats, silentProxyLogger } from "./proxy-stats.js";
import type { ProxyLogger, ProxyStatsSnapshot } from "./proxy-stats.js";
import { RunRouteTable } from "./run-route-table.js";
import { refuseConnect, openTunnel } from "./tunnel.js";

/** A model the gateway serves with the user's key (what the picker shows, what a run names). */
export interface ByokModel {
  readonly id: string;
  readonly displayName: string;
  readonly provider?: string;
  /** The model's context window (shown in Cursor's picker); 200 000 when unknown. */
  readonly contextWindowTokens?: number;
}

/** One provider key check (`cursor-gateway doctor`). */
export interface ProviderCheck {
  readonly modelId: string;
  readonly provider: string;
  readonly status: "ok" | "warn" | "fail";
  /** What was found, or what to fix; never the key. */
  readonly message: string;
}

export interface CursorProxyOptions {
  /** Loopback only. Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly ca: ProxyCertificateAuthority;
  /** The gateway's own HTTP server, e.g. `http://127.0.0.1:8787`. */
  readonly gatewayOrigin: string;
  /** `CURSOR_GATEWAY_CURSOR_UPSTREAM`; undefined: each request's own host on its CONNECT port. */
  readonly cursorUpstream?: string;
  /** The configured BYOK models, read on every run (a reload takes effect at once). */
  readonly byokModels: () => readonly ByokModel[];
  /** CAs trusted for Cursor's TLS instead of Node's default store (which has NODE_EXTRA_CA_CERTS). */
  readonly upstreamCa?: readonly string[];
  readonly logger?: ProxyLogger;
  /** How long a RunSSE waits for its run's first append before it goes to Cursor. Default 30 s. */
  readonly holdTimeoutMs?: number;
  /** Provider key checks for `doctor` (GET /_cursor-gateway/providers). */
  readonly checkProviders?: () => Promise<readonly ProviderCheck[]>;
}

export interface RunningCursorProxy {
  /** `http://127.0.0.1:<port>`: what `http.proxy` names. */
  readonly url: string;
  readonly port: number;
  stats(): ProxyStatsSnapshot;
  /** Stops listening and closes every connection it holds (tunnels, intercepted, upstream). */
  close(): Promise<void>;
}

export const proxyServiceName = "cursor-gateway-proxy";

/**
 * `cursor-gateway proxy`'s HTTP CONNECT proxy (cursor-wire.md, last section): terminates TLS
 * only for Cursor's hosts, serves BYOK runs through the gateway, relays everything else to
 * Cursor unchanged and tunnels every other host byte for byte.
 */
export async function startCursorProxy(options: CursorProxyOptions): Promise<RunningCursorProxy> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopbackHost(host)) {
    throw new Error(`the proxy listens on loopback only, not ${host}`);
  }
  const logger = options.logger ?? silentProxyLogger;
  const stats = new ProxyStats();
  const hops = new HopClient(options.upstreamCa === undefined ? {} : { ca: options.upstreamCa });
  const routes = new RunRouteTable({
    holdTimeoutMs: options.holdTimeoutMs ?? 30_000,
    retentionMs: 10 * 60_000,
    maxRuns: 10_000,
    maxHeld: 1_024,
    onTimeout: (requestId) =>
      logger.warn({ requestId }, "proxy: no run request arrived in time; the run goes to Cursor"),
  });
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  const routerOptions = {
    hops,
    stats,
    logger,
    routes,
    byokModels: options.byokModels,
    isByokModel: (modelId: string) =>
      modelId !== "" && options.byokModels().some((model) => model.id === modelId),
    gatewayOrigin: options.gatewayOrigin,
  };
  const interceptor = new CursorInterceptor({
    ca: options.ca,
    stats,
    logger,
    track,
    ...(options.upstreamCa === undefined ? {} : { upstreamCa: options.upstreamCa }),
    cursorOrigin: (target) => options.cursorUpstream ?? `https://${target.host}:${target.port}`,
    onRequest: ({ req, res, cursorOrigin }) => {
      routeCursorRequest({ req, res, cursorOrigin, options: routerOptions }).catch(
        (error: unknown) => {
          logger.error({ error: String(error) }, "proxy: routing failed");
          res.destroy();
        },
      );
    },
  });
  let url = "";
  const status = async (path: string) => {
    switch (path) {
      case "status":
        return {
          status: 200,
          body: {
            service: proxyServiceName,
            proxyURL: url,
            caCertPath: options.ca.certPath,
            caFingerprint256: options.ca.fingerprint256,
            gatewayURL: options.gatewayOrigin,
            cursorUpstream: options.cursorUpstream ?? null,
            models: options.byokModels().map(({ id, displayName, provider }) => ({
              id,
              displayName,
              ...(provider === undefined ? {} : { provider }),
            })),
            stats: stats.snapshot(routes.held),
          },
        };
      case "providers":
        return {
          status: 200,
          body: {
            checks: options.checkProviders === undefined ? [] : await options.checkProviders(),
          },
        };
      default:
        return { status: 404, body: { error: `unknown status path ${path}` } };
    }
  };

  const server = createServer({ requestTimeout: 0, headersTimeout: 60_000 }, (req, res) => {
    handlePlainRequest({ req, res, status, context: { hops, stats, logger } }).catch(
      (error: unknown) => {
        logger.error({ error: String(error) }, "proxy: plain request failed");
        res.destroy();
      },
    );
  });
  server.on("connection", (socket: Socket) => {
    stats.value.connections.open += 1;
    stats.value.connections.total += 1;
    socket.once("close", () => {
      stats.value.connections.open -= 1;
    });
    track(socket);
  });
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = parseConnectTarget(req.url ?? "");
    if (target === undefined) {
      refuseConnect({
        socket: client,
        status: 400,
        reason: "Bad Request",
        message: `bad CONNECT target ${JSON.stringify(req.url)}`,
      });
      return;
    }
    client.on("error", () => client.destroy());
    if (!isCursorHost(target.host)) {
      openTunnel({ client, head, target, stats, logger, track });
      return;
    }
    void interceptor.intercept({ client, head, target });
  });
  // Absolute-form WebSocket requests (ws:// through a plain proxy) are not supported.
  server.on("upgrade", (_req: IncomingMessage, socket: Duplex) =>
    refuseConnect({
      socket,
      status: 501,
      reason: "Not Implemented",
      message: "use CONNECT for upgrades",
    }),
  );
  server.on("clientError", (_error, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    stats: () => stats.snapshot(routes.held),
    close() {
      closing ??= new Promise<void>((resolve) => {
        routes.close();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        hops.close();
      });
      return closing;
    },
  };
}
