import { CursorError } from "@cursor/run";

/** Where every request of one run (its RunSSE and all its BidiAppends) goes. */
export type RunTarget = "gateway" | "cursor";

export interface RunDecision {
  readonly target: RunTarget;
  /** True when no run request arrived in time and the run went to Cursor by default. */
  readonly timedOut: boolean;
}

const runHoldErrorMarker = Symbol.for("cursor.error.run-hold");
/** A held request could not wait for its run's decision. */
export class RunHoldError extends CursorError {
  readonly [runHoldErrorMarker] = true;
  readonly reason: "too-many-held" | "aborted" | "closing";
  constructor({ reason, message }: { reason: RunHoldError["reason"]; message: string }) {
    super({ name: "RunHoldError", message });
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is RunHoldError {
    return typeof error === "object" && error !== null && runHoldErrorMarker in error;
  }
}

interface Entry {
  target?: RunTarget;
  timedOut: boolean;
  touchedAt: number;
  timer?: NodeJS.Timeout;
  waiters: Set<{ resolve(decision: RunDecision): void; reject(error: unknown): void }>;
}

export interface RunRouteTableOptions {
  /** How long a request waits for its run's first append before the run goes to Cursor. */
  readonly holdTimeoutMs: number;
  /** How long a decision is kept after the run's last request (GO keeps its state 10 min). */
  readonly retentionMs: number;
  /** Decisions kept at most; the oldest go first. */
  readonly maxRuns: number;
  /** Requests held at once at most; more are refused (bounded memory). */
  readonly maxHeld: number;
  readonly now?: () => number;
  readonly onTimeout?: (requestId: string) => void;
}

/**
 * The proxy's routing state: one decision per request id, taken from the run's first append
 * (the run request names the model), and the requests waiting for it. The table is the only
 * writer of these decisions; the first decision for a request id is final.
 */
export class RunRouteTable {
  readonly #entries = new Map<string, Entry>();
  readonly #options: RunRouteTableOptions;
  readonly #now: () => number;
  #held = 0;
  #closed = false;

  constructor(options: RunRouteTableOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Requests currently waiting for a decision. */
  get held(): number {
    return this.#held;
  }

  /** Request ids with a decision or a waiting request. */
  get size(): number {
    return this.#entries.size;
  }

  /** The decision for a run, if one was taken. */
  target(requestId: string): RunTarget | undefined {
    const entry = this.#touch(requestId);
    return entry?.target;
  }

  /** Records where a run goes; the first decision wins and is the one returned. */
  decide(requestId: string, target: RunTarget): RunTarget {
    return this.#settle({ requestId, target, timedOut: false });
  }

  /** Waits until the run has a decision (immediately when it has one). */
  waitFor(requestId: string, signal?: AbortSignal): Promise<RunDecision> {
    if (this.#closed) {
      return Promise.reject(
        new RunHoldError({ reason: "closing", message: "the proxy is closing" }),
      );
    }
    const existing = this.#touch(requestId);
    if (existing?.target !== undefined) {
      return Promise.resolve({ target: existing.target, timedOut: existing.timedOut });
    }
    if (this.#held >= this.#options.maxHeld) {
      return Promise.reject(
        new RunHoldError({
          reason: "too-many-held",
          message: `more than ${this.#options.maxHeld} agent requests are waiting for their run's first message`,
        }),
      );
    }
    const entry = existing ?? this.#insert(requestId);
    entry.timer ??= setTimeout(() => {
      this.#options.onTimeout?.(requestId);
      this.#settle({ requestId, target: "cursor", timedOut: true });
    }, this.#options.holdTimeoutMs);
    return new Promise<RunDecision>((resolve, reject) => {
      const waiter = {
        resolve: (decision: RunDecision) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(decision);
        },
        reject: (error: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        if (!entry.waiters.delete(waiter)) return;
        this.#held -= 1;
        reject(new RunHoldError({ reason: "aborted", message: "the client went away" }));
        if (entry.waiters.size === 0 && entry.target === undefined) this.#remove(requestId);
      };
      entry.waiters.add(waiter);
      this.#held += 1;
      if (signal?.aborted === true) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Refuses every waiting request and forgets every decision. */
  close(): void {
    this.#closed = true;
    for (const [requestId, entry] of this.#entries) {
      for (const waiter of entry.waiters) {
        waiter.reject(new RunHoldError({ reason: "closing", message: "the proxy is closing" }));
      }
      this.#held -= entry.waiters.size;
      entry.waiters.clear();
      this.#remove(requestId);
    }
  }

  #settle({
    requestId,
    target,
    timedOut,
  }: {
    requestId: string;
    target: RunTarget;
    timedOut: boolean;
  }): RunTarget {
    const entry = this.#touch(requestId) ?? this.#insert(requestId);
    if (entry.target !== undefined) return entry.target;
    entry.target = target;
    entry.timedOut = timedOut;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    delete entry.timer;
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    this.#held -= waiters.length;
    for (const waiter of waiters) waiter.resolve({ target, timedOut });
    return target;
  }

  #insert(requestId: string): Entry {
    this.#prune(1);
    const entry: Entry = { timedOut: false, touchedAt: this.#now(), waiters: new Set() };
    this.#entries.set(requestId, entry);
    return entry;
  }

  /** Moves a run to the young end (Map order is the eviction order). */
  #touch(requestId: string): Entry | undefined {
    this.#prune();
    const entry = this.#entries.get(requestId);
    if (entry === undefined) return undefined;
    entry.touchedAt = this.#now();
    this.#entries.delete(requestId);
    this.#entries.set(requestId, entry);
    return entry;
  }

  #remove(requestId: string): void {
    const entry = this.#entries.get(requestId);
    if (entry?.timer !== undefined) clearTimeout(entry.timer);
    this.#entries.delete(requestId);
  }

  /** Drops expired and surplus decisions; runs with waiting requests are never dropped. */
  #prune(adding = 0): void {
    const expiredBefore = this.#now() - this.#options.retentionMs;
    let surplus = this.#entries.size + adding - this.#options.maxRuns;
    for (const [requestId, entry] of this.#entries) {
      if (entry.waiters.size > 0) continue;
      if (entry.touchedAt >= expiredBefore && surplus <= 0) break;
      this.#remove(requestId);
      surplus -= 1;
    }
  }
}
