/** A log sink with pino's call shape; the proxy never gives it headers, bodies or keys. */
export interface ProxyLogger {
  debug(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export const silentProxyLogger: ProxyLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface ByteCount {
  /** From the client towards that hop. */
  sent: number;
  /** From that hop back to the client. */
  received: number;
}

export interface ProxyStatsSnapshot {
  readonly connections: { readonly open: number; readonly total: number };
  readonly tunnels: { readonly open: number; readonly total: number };
  readonly intercepted: { readonly open: number; readonly total: number };
  readonly requests: {
    /** Requests relayed to Cursor (other routes and Cursor-model runs). */
    readonly cursor: number;
    /** Requests served by the gateway (BYOK runs and its share of the model lists). */
    readonly gateway: number;
    /** Plain-HTTP requests to other hosts, forwarded as they are. */
    readonly forward: number;
    readonly modelListsMerged: number;
    readonly runsToGateway: number;
    readonly runsToCursor: number;
    /** Runs that went to Cursor because no run request arrived in time. */
    readonly runsTimedOut: number;
    /** Requests answered with a proxy error (a hop down, too many held, ...). */
    readonly failed: number;
  };
  readonly bytes: {
    readonly cursor: Readonly<ByteCount>;
    readonly gateway: Readonly<ByteCount>;
    readonly forward: Readonly<ByteCount>;
    readonly tunnel: Readonly<ByteCount>;
  };
  /** Requests waiting now for their run's first append. */
  readonly held: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends object ? Mutable<T[K]> : T[K] };

/** The proxy's counters; the proxy is their only writer. */
export class ProxyStats {
  readonly value: Mutable<Omit<ProxyStatsSnapshot, "held">> = {
    connections: { open: 0, total: 0 },
    tunnels: { open: 0, total: 0 },
    intercepted: { open: 0, total: 0 },
    requests: {
      cursor: 0,
      gateway: 0,
      forward: 0,
      modelListsMerged: 0,
      runsToGateway: 0,
      runsToCursor: 0,
      runsTimedOut: 0,
      failed: 0,
    },
    bytes: {
      cursor: { sent: 0, received: 0 },
      gateway: { sent: 0, received: 0 },
      forward: { sent: 0, received: 0 },
      tunnel: { sent: 0, received: 0 },
    },
  };

  snapshot(held: number): ProxyStatsSnapshot {
    return { ...structuredClone(this.value), held };
  }
}
