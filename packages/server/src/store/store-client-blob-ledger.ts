import type { ClientBlobLedger } from "@cursor/wire";
import type { GatewayStore } from "./gateway-store.js";

/**
 * The Cursor wire's `ClientBlobLedger` kept in the gateway's store (SQLite or PostgreSQL), for
 * one tenant's namespace: whichever gateway process serves a conversation's next turn knows
 * which blobs the IDE already holds, so none is sent twice. Plug it into the wire as its
 * `blobLedger` in place of the process-memory ledger.
 */
export class StoreClientBlobLedger implements ClientBlobLedger {
  readonly #store: Pick<GatewayStore, "acknowledgedClientBlobs" | "recordClientBlobs">;
  readonly #tenant: string;

  constructor({
    store,
    tenant,
  }: {
    store: Pick<GatewayStore, "acknowledgedClientBlobs" | "recordClientBlobs">;
    /** The id of the tenant whose conversations the wire serves (`Tenant.id`). */
    tenant: string;
  }) {
    this.#store = store;
    this.#tenant = tenant;
  }

  acknowledged({
    conversationId,
    blobIds,
  }: {
    readonly conversationId: string;
    readonly blobIds: readonly string[];
  }): Promise<ReadonlySet<string>> {
    return this.#store.acknowledgedClientBlobs({ tenant: this.#tenant, conversationId, blobIds });
  }

  record({
    conversationId,
    blobIds,
  }: {
    readonly conversationId: string;
    readonly blobIds: readonly string[];
  }): Promise<void> {
    return this.#store.recordClientBlobs({ tenant: this.#tenant, conversationId, blobIds });
  }
}
