import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { loadCheckpointSecret } from "./checkpoint-secret.js";
import { ConfigError, isLoopbackHost } from "./config.js";
import type { GatewayConfig } from "./config.js";
import { ConversationService } from "./conversation-service.js";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import { buildApp } from "./http/build-app.js";
import { guardConnections } from "./http/connection-limits.js";
import { GatewayMetrics } from "./http/metrics.js";
import { ModelCatalog } from "./models/model-catalog.js";
import type { SimulatedProvider } from "./models/model-catalog.js";
import { SecretRedactor } from "./redaction/secret-redactor.js";
import { SqliteStore } from "./store/sqlite-store.js";

export interface StartGatewayOptions {
  readonly config: GatewayConfig;
  /** pino logger options for Fastify; `false` for none. */
  readonly logger?: boolean | object;
  readonly retry?: ConversationServiceOptions["retry"];
  readonly now?: () => Date;
}

export interface RunningGateway {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly service: ConversationService;
  /** The configured models (what a model picker lists; each entry's adapter). */
  readonly models: ModelCatalog;
  /**
   * Where the in-process fake provider of `simulated` models listens, when there is one. Every
   * call to it needs its access token (`models.simulated()`); a process that shares the data
   * folder finds both in its `simulated-provider.json` (mode 0600, removed on close).
   */
  readonly simulatedProviderURL?: string;
  /** Stops taking requests, ends open runs cleanly, closes the store. */
  close(): Promise<void>;
}

/** Starts the gateway on the embedded default: SQLite in the data folder. */
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
    dataDir: config.dataDir,
    ...(config.checkpointSecret === undefined ? {} : { configured: config.checkpointSecret }),
  });
  const store = new SqliteStore({ path: join(config.dataDir, "gateway.sqlite") });
  await store.clearRunLocks();
  const models = new ModelCatalog({
    models: config.models,
    // The testkit's fake provider with its prefix-cache simulation, on a loopback port that only
    // holders of its random access token can use (its control routes show every request body).
    simulated: async () => {
      const { startFakeProvider } = await import("@cursor/testkit");
      const accessToken = randomBytes(32).toString("base64url");
      const fake = await startFakeProvider({ host: "127.0.0.1", port: 0, accessToken });
      return {
        url: fake.url,
        openaiBaseURL: fake.openaiBaseURL,
        accessToken,
        close: () => fake.close(),
      };
    },
  });
  // Started now rather than on the first call; its address and token go only to the data folder
  // (the demo scripts it from there), never to the ready line or a log.
  const simulated = models.hasSimulated ? await models.simulated() : undefined;
  if (simulated !== undefined) writeSimulatedProviderFile(config.dataDir, simulated);
  const simulatedProviderURL = simulated?.url;
  // One redaction path for every byte that leaves: events, errors, records and log lines.
  const redactor = new SecretRedactor({ secrets: models.secrets });
  const metrics = new GatewayMetrics();
  // The service logs through the app's logger, which exists only once the app is built.
  const appRef: { current?: FastifyInstance } = {};
  const service = new ConversationService({
    store,
    models,
    contextWindow: config.contextWindow,
    checkpointSecret,
    metrics,
    redactor,
    logger: { error: (details, message) => appRef.current?.log.error(details, message) },
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const app = buildApp({
    config,
    metrics,
    service,
    logger: redactedLogger(options.logger ?? false, redactor),
    connections: config.connections,
  });
  // Every connection the port accepts, whichever protocol server handles it.
  guardConnections({
    server: app.server,
    limits: config.connections,
    events: {
      rejected: (reason) =>
        metrics.increment("cursor_gateway_connections_rejected_total", { reason }),
      timedOut: (kind) => metrics.increment("cursor_gateway_connection_timeouts_total", { kind }),
    },
  });
  appRef.current = app;
  return finishStart({ app, service, store, models, simulatedProviderURL, config });
}

async function finishStart({
  app,
  service,
  store,
  models,
  simulatedProviderURL,
  config,
}: {
  app: FastifyInstance;
  service: ConversationService;
  store: SqliteStore;
  models: ModelCatalog;
  simulatedProviderURL: string | undefined;
  config: GatewayConfig;
}): Promise<RunningGateway> {
  const address = await app.listen({ host: config.host, port: config.port });
  let closed: Promise<void> | undefined;
  return {
    url: address,
    app,
    service,
    models,
    ...(simulatedProviderURL === undefined ? {} : { simulatedProviderURL }),
    close() {
      closed ??= (async () => {
        await service.shutdown();
        await app.close();
        await models.close();
        await store.close();
        if (simulatedProviderURL !== undefined) removeSimulatedProviderFile(config.dataDir);
      })();
      return closed;
    },
  };
}

/** Where a gateway process's simulated provider can be found by a process sharing its data folder. */
export const simulatedProviderFileName = "simulated-provider.json";

function writeSimulatedProviderFile(dataDir: string, simulated: SimulatedProvider): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, simulatedProviderFileName);
  rmSync(file, { force: true });
  writeFileSync(
    file,
    `${JSON.stringify({ url: simulated.url, accessToken: simulated.accessToken })}\n`,
    { mode: 0o600, flag: "wx" },
  );
}

function removeSimulatedProviderFile(dataDir: string): void {
  rmSync(join(dataDir, simulatedProviderFileName), { force: true });
}

/** pino options whose every written line passes through the redactor (whatever was logged). */
function redactedLogger(logger: boolean | object, redactor: SecretRedactor): boolean | object {
  if (logger === false) return false;
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
