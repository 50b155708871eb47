import { join } from "node:path";
import { ConfigError, loadConfig, loadProxyConfig } from "../config.js";
import type { GatewayConfig } from "../config.js";
import { checkProviderKey } from "../setup/provider-key-check.js";
import { startGateway } from "../start-gateway.js";
import { loadOrCreateProxyCa, proxyCaFolderName } from "./proxy-ca.js";
import { startCursorProxy } from "./start-cursor-proxy.js";
import type { ByokModel, ProviderCheck } from "./start-cursor-proxy.js";

/** The BYOK models of the configuration (its model catalog, the default first). */
export function configuredByokModels(config: GatewayConfig): readonly ByokModel[] {
  return config.models.map(({ id, displayName, provider }) => ({
    id,
    displayName,
    provider,
    contextWindowTokens: config.contextWindow,
  }));
}

function providerKeyChecks(config: GatewayConfig): Promise<readonly ProviderCheck[]> {
  return Promise.all(
    config.models.map((model) =>
      checkProviderKey({
        modelId: model.id,
        provider: model.provider,
        model: model.model,
        ...(model.apiKey === undefined ? {} : { apiKey: model.apiKey }),
        ...(model.baseURL === undefined ? {} : { baseURL: model.baseURL }),
      }),
    ),
  );
}

function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === "EADDRINUSE";
}

/**
 * `cursor-gateway proxy`: the gateway and the proxy in one process. Logs one ready line naming
 * the proxy URL and the CA certificate's path; SIGTERM / SIGINT stop both.
 */
export async function runProxyCommand({
  env,
  out,
}: {
  env: Record<string, string | undefined>;
  out: NodeJS.WritableStream;
}): Promise<{ close(): Promise<void> }> {
  const config = loadConfig(env);
  const proxyConfig = loadProxyConfig(env);
  const ca = await loadOrCreateProxyCa({ folder: join(proxyConfig.dataDir, proxyCaFolderName) });
  const gateway = await startGateway({
    config,
    logger: { level: env.CURSOR_GATEWAY_LOG_LEVEL ?? "info" },
    behindCursorProxy: true,
  }).catch((error: unknown) => {
    if (!isAddressInUse(error)) throw error;
    throw new ConfigError({
      issues: [
        `CURSOR_GATEWAY_PORT: ${config.host}:${config.port} is in use (a cursor-gateway serve already running?)`,
      ],
    });
  });
  const log = gateway.app.log.child({ component: "cursor-proxy" });
  const models = configuredByokModels(config);
  let proxy;
  try {
    proxy = await startCursorProxy({
      port: proxyConfig.port,
      ca,
      gatewayOrigin: gateway.url,
      ...(proxyConfig.cursorUpstream === undefined
        ? {}
        : { cursorUpstream: proxyConfig.cursorUpstream }),
      byokModels: () => models,
      logger: {
        debug: (details, message) => log.debug(details, message),
        info: (details, message) => log.info(details, message),
        warn: (details, message) => log.warn(details, message),
        error: (details, message) => log.error(details, message),
      },
      checkProviders: () => providerKeyChecks(config),
    });
  } catch (error) {
    await gateway.close();
    if (!isAddressInUse(error)) throw error;
    throw new ConfigError({
      issues: [
        `CURSOR_GATEWAY_PROXY_PORT: 127.0.0.1:${proxyConfig.port} is in use (another cursor-gateway proxy?)`,
      ],
    });
  }
  out.write(
    `cursor-gateway proxy ready: ${proxy.url} (CA ${ca.certPath}${ca.created ? ", created now: trust it, see cursor-gateway setup" : ""}), gateway ${gateway.url}, Cursor upstream ${proxyConfig.cursorUpstream ?? "each Cursor host on its own port"}, BYOK models ${models.map((model) => model.id).join(", ")}\n`,
  );
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        await proxy.close();
        await gateway.close();
      })();
      return closing;
    },
  };
}
