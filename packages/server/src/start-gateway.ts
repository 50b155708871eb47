import { randomBytes } from "node:crypto";
import { createCursorWire } from "@cursor/wire";
import type { CursorWire, ToolBridgeFactory } from "@cursor/wire";
import type { FastifyInstance } from "fastify";
import { loadCheckpointSecret } from "./checkpoint-secret.js";
import { ConfigError, defaultUsageRetentionDays, isLoopbackHost } from "./config.js";
import type { GatewayConfig } from "./config.js";
import { ConversationService } from "./conversation-service.js";
import { prepareDataFolder } from "./data-folder.js";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import { createGatewayWirePorts } from "./cursor-wire/gateway-wire-ports.js";
import { createWireHttpHandler } from "./cursor-wire/wire-http-handler.js";
import { createAuthenticator, localTenant } from "./http/auth.js";
import { buildApp } from "./http/build-app.js";
import { guardConnections } from "./http/connection-limits.js";
import { createDualProtocolServer } from "./http/dual-protocol-server.js";
import type { DualProtocolServer } from "./http/dual-protocol-server.js";
import { GatewayMetrics } from "./http/metrics.js";
import { ModelCatalog } from "./models/model-catalog.js";
import { createGatewayRedactor } from "./redaction/gateway-secrets.js";
import type { SecretRedactor } from "./redaction/secret-redactor.js";
import { listenError } from "./startup-error.js";
import type { GatewayStore } from "./store/gateway-store.js";
import { openGatewayStore } from "./store/open-gateway-store.js";
import { StoreClientBlobLedger } from "./store/store-client-blob-ledger.js";
import { PriceTable } from "./usage/price-table.js";
import { UsageReports } from "./usage/usage-reports.js";
import { startUsageRetention } from "./usage/usage-retention.js";

export interface StartGatewayOptions {
  readonly config: GatewayConfig;
  /** pino logger options for Fastify; `false` for none. */
  readonly logger?: boolean | object;
  readonly retry?: ConversationServiceOptions["retry"];
  readonly now?: () => Date;
  /**
   * The gateway's redaction path (`createGatewayRedactor(config)`), when the caller's logger
   * must share it (a pino instance from `createGatewayLogger({ redactor })`). Default: one made
   * from the configuration; pino options then get its `streamWrite` hook.
   */
  readonly redactor?: SecretRedactor;
  /**
   * The gateway sits behind `cursor-gateway proxy`: the Cursor wire's routes are served even
   * when it does not listen on a loopback address.
   */
  readonly behindCursorProxy?: boolean;
  /**
   * Runs the tool rounds of Cursor turns. Default: the wire's `createIdeToolBridge()` (each
   * call runs in the IDE through the agent protocol's exec messages).
   */
  readonly toolBridge?: ToolBridgeFactory;
}

export interface RunningGateway {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly service: ConversationService;
  /** The store this process runs on (SQLite, or PostgreSQL shared with other processes). */
  readonly store: GatewayStore;
  /** The configured models (what a model picker lists; each entry's adapter). */
  readonly models: ModelCatalog;
  /** The Cursor IDE's agent protocol, mounted on the same port (HTTP/1.1 and h2c). */
  readonly wire: CursorWire;
  /**
   * Where the in-process fake provider of `simulated` models listens, when there is one (never
   * announced). Every call to it needs its access token (`models.simulated()`).
   */
  readonly simulatedProviderURL?: string;
  /** Stops taking requests, ends open runs cleanly, closes the store. */
  close(): Promise<void>;
}

/** How long a run holds its conversation without renewing it (renewed every third of it). */
export const defaultRunLeaseMs = 30_000;

/**
 * Starts the gateway on its store: PostgreSQL when `config.databaseURL` is set (shared by every
 * process of the deployment), else the embedded default, SQLite in the data folder.
 */
export async function startGateway(options: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = options;
  if (config.tokens.length === 0 && !isLoopbackHost(config.host)) {
    throw new ConfigError({
      issues: [
        `CURSOR_GATEWAY_TOKENS must be set to listen on ${config.host}: without tokens the gateway only listens on loopback`,
      ],
    });
  }
  // Before anything is opened: a data folder whose secret is unusable refuses the start.
  const checkpointSecret = loadCheckpointSecret({
    dataDir: prepareDataFolder(config.dataDir),
    ...(config.checkpointSecret === undefined ? {} : { configured: config.checkpointSecret }),
  });
  // The service logs through the app's logger, which exists only once the app is built.
  const appRef: { current?: FastifyInstance } = {};
  const runLeaseMs = config.runLeaseMs ?? defaultRunLeaseMs;
  const store = await openGatewayStore({
    // Checked first: the SQLite file, the checkpoint secret and the proxy CA live there.
    dataDir: config.dataDir,
    ...(config.databaseURL === undefined ? {} : { databaseURL: config.databaseURL }),
    runLeaseMs,
    logger: { error: (details, message) => appRef.current?.log.error(details, message) },
  });
  const models = new ModelCatalog({
    models: config.models,
    // The fake provider with its prefix-cache simulation and scripted agent, on a loopback
    // port, private: its control endpoints are off (no other process can script it or read the
    // bodies it received), it keeps no request records (constant memory in a long run), and
    // its API answers only the holder of a random token (the simulated adapter).
    simulated: async () => {
      const { scriptedAgentReply, startFakeProvider } = await import("@cursor/fake-provider");
      const accessToken = randomBytes(32).toString("base64url");
      const fake = await startFakeProvider({
        host: "127.0.0.1",
        port: 0,
        defaultReply: scriptedAgentReply,
        control: false,
        recordRequests: false,
        accessToken,
      });
      return {
        url: fake.url,
        openaiBaseURL: fake.openaiBaseURL,
        accessToken,
        close: () => fake.close(),
      };
    },
  });
  // Started now rather than on the first call, so the first turn does not wait for it.
  const simulatedProviderURL = models.hasSimulated ? (await models.simulated()).url : undefined;
  // One redaction path for every byte that leaves: events, errors, records and log lines.
  const redactor = options.redactor ?? createGatewayRedactor(config);
  const serviceRef: { current?: ConversationService } = {};
  const metrics = new GatewayMetrics({
    activeRuns: () => serviceRef.current?.activeRuns ?? 0,
    cache: () => serviceRef.current?.cacheStats(),
  });
  const service = new ConversationService({
    store,
    models,
    contextWindow: config.contextWindow,
    checkpointSecret,
    metrics,
    redactor,
    logger: { error: (details, message) => appRef.current?.log.error(details, message) },
    runLeaseMs,
    ...(config.cacheBytes === undefined ? {} : { cacheBytes: config.cacheBytes }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  serviceRef.current = service;
  const retentionDays = config.usageRetentionDays ?? defaultUsageRetentionDays;
  const usage = new UsageReports({
    store,
    prices: config.prices ?? PriceTable.defaults(),
    retentionDays,
  });
  const wireLogger = {
    warn: (details: Readonly<Record<string, unknown>>, message: string) =>
      appRef.current?.log.warn({ component: "cursor-wire", ...details }, message),
    error: (details: Readonly<Record<string, unknown>>, message: string) =>
      appRef.current?.log.error({ component: "cursor-wire", ...details }, message),
  };
  const tenant = wireTenant(config);
  const wire = createCursorWire({
    ports: createGatewayWirePorts({
      service,
      tenant,
      models,
      contextWindow: config.contextWindow,
      checkpointSecret,
      logger: wireLogger,
    }),
    // What the IDE holds, per conversation, in the store: a restarted gateway or another process
    // of the deployment sends the IDE only blobs it has not acknowledged.
    blobLedger: new StoreClientBlobLedger({ store, tenant: tenant.id }),
    ...(options.toolBridge === undefined ? {} : { toolBridge: options.toolBridge }),
  });
  const wireEnabled = isLoopbackHost(config.host) || options.behindCursorProxy === true;
  const wireHandler = createWireHttpHandler({
    wire,
    logger: wireLogger,
    redactor,
    ...(wireEnabled
      ? {}
      : {
          disabledReason:
            "the Cursor wire routes are served only when the gateway listens on a loopback address or runs behind cursor-gateway proxy",
        }),
  });
  let dual: DualProtocolServer | undefined;
  const app = buildApp({
    config,
    metrics,
    service,
    usage,
    logger: redactedLogger(options.logger ?? false, redactor),
    connections: config.connections,
    // One port: the JSON contract (Fastify) and the Cursor wire's routes, HTTP/1.1 and h2c.
    serverFactory: (fastifyHandler) => {
      dual = createDualProtocolServer((request, response) => {
        if (wireHandler.matches(request)) void wireHandler.handle(request, response);
        // Fastify's handler serves Node's HTTP/2 compatibility objects as it serves HTTP/1.1.
        else fastifyHandler(request as never, response as never);
      });
      return dual.server;
    },
  });
  appRef.current = app;
  if (dual === undefined) throw new Error("Fastify did not create the gateway's server");
  // Every connection the port accepts, whichever protocol serves it (HTTP/1.1 or h2c, the JSON
  // contract or the Cursor wire): the guard's listener runs before the protocol sniffer.
  guardConnections({
    server: dual.server,
    limits: config.connections,
    events: {
      rejected: (reason) =>
        metrics.increment("cursor_gateway_connections_rejected_total", { reason }),
      timedOut: (kind) => metrics.increment("cursor_gateway_connection_timeouts_total", { kind }),
    },
  });
  const retention = startUsageRetention({
    store: store.providerCalls,
    retentionDays,
    now: () => options.now?.() ?? new Date(),
    metrics,
    logger: { error: (details, message) => appRef.current?.log.error(details, message) },
  });
  return finishStart({
    app,
    service,
    store,
    models,
    simulatedProviderURL,
    config,
    wire,
    dual,
    stopRetention: () => retention.stop(),
  });
}

/** The tenant of the Cursor IDE's conversations (cursor-wire.md "Who the wire serves"). */
function wireTenant(config: GatewayConfig) {
  if (config.wireToken === undefined) return localTenant;
  const tenant = createAuthenticator(config.tokens)(`Bearer ${config.wireToken}`);
  if (tenant === undefined) throw new Error("CURSOR_GATEWAY_WIRE_TOKEN is not a configured token");
  return tenant;
}

async function finishStart({
  app,
  service,
  store,
  models,
  simulatedProviderURL,
  config,
  stopRetention,
  wire,
  dual,
}: {
  stopRetention: () => Promise<void>;
  app: FastifyInstance;
  service: ConversationService;
  store: GatewayStore;
  models: ModelCatalog;
  simulatedProviderURL: string | undefined;
  config: GatewayConfig;
  wire: CursorWire;
  dual: DualProtocolServer;
}): Promise<RunningGateway> {
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Nothing stays open when the gateway cannot listen (the simulated provider, the store).
    await app.close().catch(() => undefined);
    await models.close();
    await store.close();
    throw listenError({
      error,
      what: "the gateway",
      host: config.host,
      port: config.port,
      variables: { host: "CURSOR_GATEWAY_HOST", port: "CURSOR_GATEWAY_PORT" },
    });
  }
  let closed: Promise<void> | undefined;
  return {
    url: address,
    app,
    service,
    store,
    models,
    wire,
    ...(simulatedProviderURL === undefined ? {} : { simulatedProviderURL }),
    close() {
      closed ??= (async () => {
        // Open runs end (cancelled, nothing half-committed), then their streams and connections.
        await Promise.all([wire.close(), service.shutdown()]);
        await stopRetention();
        await dual.closeHttp2Sessions();
        await app.close();
        await models.close();
        await store.close();
      })();
      return closed;
    },
  };
}

/** pino options whose every written line passes through the redactor (whatever was logged). */
function redactedLogger(logger: boolean | object, redactor: SecretRedactor): boolean | object {
  if (logger === false) return false;
  // A pino instance redacts through its own hook (`createGatewayLogger({ redactor })`).
  if (typeof (logger as { child?: unknown }).child === "function") return logger;
  const base = (logger === true ? {} : logger) as {
    hooks?: { streamWrite?: (line: string) => string };
  };
  const inner = base.hooks?.streamWrite;
  return {
    ...base,
    hooks: {
      ...base.hooks,
      streamWrite: (line: string) => redactor.redact(inner === undefined ? line : inner(line)),
    },
  };
}
