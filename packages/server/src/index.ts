export {
  ConfigError,
  defaultProxyPort,
  isLoopbackHost,
  loadConfig,
  loadProxyConfig,
} from "./config.js";
export type { GatewayConfig, ProviderName, ProxyConfig } from "./config.js";
export { ConversationService } from "./conversation-service.js";
export type { PreparedRun } from "./conversation-service.js";
export type { ConversationServiceOptions, GatewayLogger } from "./conversation-service-options.js";
export { startGateway } from "./start-gateway.js";
export type { RunningGateway, StartGatewayOptions } from "./start-gateway.js";
export { buildApp, maxBodyBytes } from "./http/build-app.js";
export { providerHistoryItems, sharedPrefixItems } from "./providers/provider-history-items.js";
export { SqliteStore, StoreError } from "./store/sqlite-store.js";
export type { StoreErrorReason } from "./store/sqlite-store.js";
export type {
  CommitInput,
  GatewayStore,
  HeadVersion,
  RunStatus,
  StoredConversation,
  StoredRun,
  UsageTotals,
} from "./store/gateway-store.js";
export { createGatewayClient, parseSseEvents } from "./client/gateway-client.js";
export type { GatewayClient, RunEvent, RunResponse } from "./client/gateway-client.js";
export { startCursorProxy } from "./proxy/start-cursor-proxy.js";
export type {
  ByokModel,
  CursorProxyOptions,
  ProviderCheck,
  RunningCursorProxy,
} from "./proxy/start-cursor-proxy.js";
export type { ProxyLogger, ProxyStatsSnapshot } from "./proxy/proxy-stats.js";
export type { AppendPeek, ModelListMerger, RunClassifier } from "./proxy/wire-ports.js";
export { ProxyCaError, loadOrCreateProxyCa } from "./proxy/proxy-ca.js";
export type { ProxyCertificateAuthority, ProxyCaErrorReason } from "./proxy/proxy-ca.js";
