export {
  ConfigError,
  defaultProxyPort,
  isLoopbackHost,
  loadConfig,
  loadProxyConfig,
} from "./config.js";
export { logFormats, logLevels } from "./config.js";
export type { GatewayConfig, LogFormat, LogLevel, ProxyConfig } from "./config.js";
export { defaultProviderModels, modelEfforts, providerNames } from "./models/model-config.js";
export type { ModelConfig, ModelEffort, ProviderName } from "./models/model-config.js";
export { readModelsFile } from "./models/models-file.js";
export type { ModelsFileResult } from "./models/models-file.js";
export { ModelCatalog } from "./models/model-catalog.js";
export type {
  ModelListing,
  ModelSelection,
  SimulatedProvider,
  UnlistedModel,
} from "./models/model-catalog.js";
export { anthropicThinkingBudgets } from "./models/create-model-adapter.js";
export { ConversationService } from "./conversation-service.js";
export { cacheKinds, defaultCacheBytes } from "./cache/cache-ledger.js";
export type { CacheKind, CacheKindStats, CacheLedgerStats } from "./cache/cache-ledger.js";
export type { HydratedHead, PrepareRunInput, PreparedRun } from "./conversation-service.js";
export type { ConversationServiceOptions, GatewayLogger } from "./conversation-service-options.js";
export type { RunEndReason, RunError, RunEvent, RunOutcome, RunSink } from "./run-events.js";
export { SecretRedactor } from "./redaction/secret-redactor.js";
export type { StreamRedactor } from "./redaction/secret-redactor.js";
export {
  ConversationBusyError,
  ConversationError,
  ConversationNotFoundError,
  GatewayClosingError,
  InvalidCheckpointError,
  InvalidRunRequestError,
  RunConflictError,
  UnknownModelError,
} from "./conversation-errors.js";
export type { ConversationErrorCode, RequestIssue } from "./conversation-errors.js";
export { localTenant } from "./http/auth.js";
export { tenantCacheScope } from "./tenant-cache-scope.js";
export type { Tenant } from "./http/auth.js";
export { defaultRunLeaseMs, startGateway } from "./start-gateway.js";
export { StartupError } from "./startup-error.js";
export type { StartupErrorReason } from "./startup-error.js";
export { createGatewayLogger } from "./logging/gateway-logger.js";
export type { LogOutput } from "./logging/log-output.js";
export type { RunningGateway, StartGatewayOptions } from "./start-gateway.js";
export { buildApp, maxBodyBytes } from "./http/build-app.js";
export { providerHistoryItems, sharedPrefixItems } from "./providers/provider-history-items.js";
export type {
  BodyDiffView,
  CallView,
  CallsPage,
  ConversationUsageView,
  ConversationsPage,
  CostView,
  DivergenceResponse,
  ModelUsageView,
  PrefixStatusView,
  PriceSourceView,
  PriceView,
  TokensView,
  UsageSummaryView,
  UsageTotalsView,
} from "./usage/usage-api.js";
export { SqliteStore } from "./store/sqlite-store.js";
export { PostgresStore } from "./store/postgres-store.js";
export type { PostgresStoreLogger, PostgresStoreOptions } from "./store/postgres-store.js";
export { StoreClientBlobLedger } from "./store/store-client-blob-ledger.js";
export { StoreError } from "./store/store-error.js";
export type { StoreErrorReason } from "./store/store-error.js";
export type {
  AppendMessagesInput,
  ClientBlobsInput,
  GatewayStore,
  HeadVersion,
  LastInput,
  RecordRunInput,
  RunStatus,
  StartEpochInput,
  StoredConversation,
  StoredRun,
  StoredTurn,
  UsageTotals,
} from "./store/gateway-store.js";
export { createGatewayClient, parseSseEvents, readSseEvents } from "./client/gateway-client.js";
export type {
  GatewayClient,
  RunEvent as GatewayClientEvent,
  RunOptions,
  RunResponse,
} from "./client/gateway-client.js";
export { startCursorProxy } from "./proxy/start-cursor-proxy.js";
export type {
  ByokModel,
  CursorProxyOptions,
  ProviderCheck,
  RunningCursorProxy,
} from "./proxy/start-cursor-proxy.js";
export type { ProxyLogger, ProxyStatsSnapshot } from "./proxy/proxy-stats.js";
export { ProxyCaError, loadOrCreateProxyCa } from "./proxy/proxy-ca.js";
export type { ProxyCertificateAuthority, ProxyCaErrorReason } from "./proxy/proxy-ca.js";
