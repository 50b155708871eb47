import type { RetryPolicy } from "@cursor/run";
import type { GatewayMetrics } from "./http/metrics.js";
import type { ModelCatalog } from "./models/model-catalog.js";
import type { SecretRedactor } from "./redaction/secret-redactor.js";
import type { GatewayStore } from "./store/gateway-store.js";

/** Where the service reports what it cannot tell the client (the app's pino logger). */
export interface GatewayLogger {
  error(details: Record<string, unknown>, message: string): void;
}

export interface ConversationServiceOptions {
  readonly store: GatewayStore;
  /** The configured BYOK models; a request's `model` picks one. */
  readonly models: ModelCatalog;
  readonly contextWindow: number;
  /** Signs the JSON contract's client checkpoints. */
  readonly checkpointSecret: string;
  readonly metrics: GatewayMetrics;
  readonly logger: GatewayLogger;
  readonly now?: () => Date;
  readonly retry?: Partial<RetryPolicy>;
  /** How long a run holds its conversation before another process may take it over. */
  readonly runLeaseMs?: number;
  /**
   * The byte budget of what the service keeps in memory: conversation heads, their checkpoint
   * segments, provider request bodies and prompt specs, least recently used out first (a
   * conversation with a run in progress stays). Default `defaultCacheBytes` (256 MiB).
   */
  readonly cacheBytes?: number;
  /**
   * Cap on the body bytes (as JSON) of one `provider-requests` answer: older bodies beyond it are
   * left out (`omitted` counts them); the newest one is always included. Default 32 MiB.
   */
  readonly providerRequestsMaxBytes?: number;
  /**
   * The gateway's one redaction path (shared with its logger). Default: a redactor of the
   * catalog's keys and `secrets`.
   */
  readonly redactor?: SecretRedactor;
  /** More values never to show in errors, logs or the store (the catalog's keys always are). */
  readonly secrets?: readonly string[];
}
