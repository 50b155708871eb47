import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { loadCheckpointSecret } from "./checkpoint-secret.js";
import { ConfigError, isLoopbackHost } from "./config.js";
import type { GatewayConfig } from "./config.js";
import { ConversationService } from "./conversation-service.js";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import { buildApp } from "./http/build-app.js";
import { GatewayMetrics } from "./http/metrics.js";
import { createConfiguredProvider } from "./providers/create-provider.js";
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
  const store = new SqliteStore({ path: join(config.dataDir, "gateway.sqlite") });
  await store.clearRunLocks();
  const provider = await createConfiguredProvider(config);
  const metrics = new GatewayMetrics();
  // The service logs through the app's logger, which exists only once the app is built.
  const appRef: { current?: FastifyInstance } = {};
  const service = new ConversationService({
    store,
    provider: provider.adapter,
    model: config.model,
    contextWindow: config.contextWindow,
    checkpointSecret: loadCheckpointSecret({
      dataDir: config.dataDir,
      ...(config.checkpointSecret === undefined ? {} : { configured: config.checkpointSecret }),
    }),
    metrics,
    secrets: [config.openai.apiKey, config.anthropic.apiKey].filter(
      (secret): secret is string => secret !== undefined,
    ),
    logger: { error: (details, message) => appRef.current?.log.error(details, message) },
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const app = buildApp({ config, metrics, service, logger: options.logger ?? false });
  appRef.current = app;
  return finishStart({ app, service, store, provider, config });
}

async function finishStart({
  app,
  service,
  store,
  provider,
  config,
}: {
  app: FastifyInstance;
  service: ConversationService;
  store: SqliteStore;
  provider: Awaited<ReturnType<typeof createConfiguredProvider>>;
  config: GatewayConfig;
}): Promise<RunningGateway> {
  const address = await app.listen({ host: config.host, port: config.port });
  let closed: Promise<void> | undefined;
  return {
    url: address,
    app,
    service,
    ...(provider.simulatedURL === undefined ? {} : { simulatedProviderURL: provider.simulatedURL }),
    close() {
      closed ??= (async () => {
        await service.shutdown();
        await app.close();
        await provider.close();
        await store.close();
      })();
      return closed;
    },
  };
}
