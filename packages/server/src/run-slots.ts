import { conversationKey } from "./conversation-head-owner.js";
import type { GatewayLogger } from "./conversation-service-options.js";
import type { GatewayStore } from "./store/gateway-store.js";

/** The run that holds (or asks for) a conversation's run slot. */
export interface RunLease {
  readonly tenant: string;
  readonly conversationId: string;
  readonly runId: string;
}

/**
 * Every conversation's single run slot: one request runs at a time. Where several processes
 * share the store (PostgreSQL), the slot is a lease in the store, renewed while the run lasts,
 * so a process that dies mid-run gives the conversation up when its lease expires. Where one
 * process owns the store (SQLite), only that process runs the store's conversations, so its own
 * set of held slots is the whole truth: taking and freeing a slot writes nothing (two write
 * transactions fewer per call, one of them before the provider call).
 */
export class RunSlots {
  readonly #store: GatewayStore;
  readonly #leaseMs: number;
  readonly #logger: GatewayLogger;
  /** The slots this process holds, for a store it owns (`conversationKey`s). */
  readonly #held = new Set<string>();

  constructor({
    store,
    leaseMs,
    logger,
  }: {
    store: GatewayStore;
    leaseMs: number;
    logger: GatewayLogger;
  }) {
    this.#store = store;
    this.#leaseMs = leaseMs;
    this.#logger = logger;
  }

  /** Takes the conversation's slot for `lease.runId`; false when another run holds it. */
  async take(lease: RunLease): Promise<boolean> {
    if (this.#store.sharedAcrossProcesses) {
      return this.#store.acquireRun({ ...lease, leaseMs: this.#leaseMs });
    }
    // Checked and taken in one step: two requests that both passed their earlier awaits
    // cannot both get it.
    const key = conversationKey(lease.tenant, lease.conversationId);
    if (this.#held.has(key)) return false;
    this.#held.add(key);
    return true;
  }

  /** Frees the slot `take` gave `lease`. */
  async free(lease: RunLease): Promise<void> {
    if (this.#store.sharedAcrossProcesses) {
      await this.#store.releaseRun(lease);
      return;
    }
    this.#held.delete(conversationKey(lease.tenant, lease.conversationId));
  }

  /**
   * Keeps a store lease alive while its run lasts (every third of the lease); returns what stops
   * it. A slot of a store this process owns never expires: nothing to renew.
   */
  keepAlive(lease: RunLease): () => void {
    if (!this.#store.sharedAcrossProcesses) return () => undefined;
    const { conversationId, runId } = lease;
    const renew = setInterval(
      () =>
        // A failed renewal (the database unreachable for a moment) must not end the process;
        // a lease lost to another process fences this run's writes (they are refused).
        void this.#store.renewRun({ ...lease, leaseMs: this.#leaseMs }).then(
          (held) => {
            if (!held) {
              this.#logger.error(
                { conversationId, runId },
                "the run lease was lost: another process may serve this conversation",
              );
            }
          },
          (error: unknown) =>
            this.#logger.error(
              // The service's logger redacts (the URL of a database may hold a password too).
              { err: error, conversationId },
              "could not renew the run lease",
            ),
        ),
      Math.max(1_000, Math.floor(this.#leaseMs / 3)),
    );
    renew.unref();
    return () => clearInterval(renew);
  }
}
