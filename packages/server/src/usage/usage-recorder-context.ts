import type { GatewayLogger } from "../conversation-service-options.js";
import type { GatewayMetrics } from "../http/metrics.js";
import type { ProviderRequestLog } from "../providers/provider-request-log.js";
import type { ProviderCallStore } from "../store/provider-call-store.js";

/** What every run's recorder shares: where records go, the process identity, the clock. */
export interface UsageRecorderContext {
  readonly store: ProviderCallStore;
  readonly requestLog: ProviderRequestLog;
  readonly metrics: GatewayMetrics;
  readonly logger: GatewayLogger;
  /** The gateway's redaction path: every text of a record passes it before it is stored. */
  readonly redact: (text: string) => string;
  readonly now: () => Date;
  /** This gateway process: a restart shows as another id on the next call. */
  readonly process: { readonly id: string; readonly startedAt: number };
  readonly conversationKey: (tenant: string, conversationId: string) => string;
}
