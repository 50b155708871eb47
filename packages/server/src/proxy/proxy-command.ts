import { join } from "node:path";
import { loadConfig, loadProxyConfig } from "../config.js";
import type { GatewayConfig } from "../config.js";
import { checkProviderKey } from "../setup/provider-key-check.js";
import { createGatewayLogger } from "../logging/gateway-logger.js";
import { startGateway } from "../start-gateway.js";
import { listenError } from "../startup-error.js";
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
    logger: createGatewayLogger({
      level: config.logLevel,
      ...(config.logFormat === undefined ? {} : { format: config.logFormat }),
    }),
    behindCursorProxy: true,
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
    throw listenError({
      error,
      what: "the Cursor proxy",
      host: "127.0.0.1",
      port: proxyConfig.port,
      variables: { host: "CURSOR_GATEWAY_PROXY_PORT", port: "CURSOR_GATEWAY_PROXY_PORT" },
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
