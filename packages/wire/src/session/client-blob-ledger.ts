/**
 * The per-conversation record of blobs the client (the IDE) has acknowledged, so each blob is
 * sent once: a turn's KV traffic is O(what the turn added). The server may persist it in its
 * store, so that any gateway process can serve the next turn; `MemoryClientBlobLedger` keeps it
 * in process memory.
 */
export interface ClientBlobLedger {
  /** Of `blobIds` (lowercase hex), those the client acknowledged for this conversation. */
  acknowledged(input: {
    readonly conversationId: string;
    readonly blobIds: readonly string[];
  }): Promise<ReadonlySet<string>> | ReadonlySet<string>;
  /** Records blobs the client now holds (an error-free `set_blob_result`, or blobs it sent us). */
  record(input: {
    readonly conversationId: string;
    readonly blobIds: readonly string[];
  }): Promise<void> | void;
}

/** Process-memory ledger, bounded to `maxConversations` (least recently used out first). */
export class MemoryClientBlobLedger implements ClientBlobLedger {
  readonly #byConversation = new Map<string, Set<string>>();
  readonly #maxConversations: number;

  constructor({ maxConversations = 1_000 }: { maxConversations?: number } = {}) {
    this.#maxConversations = maxConversations;
  }

  acknowledged({
    conversationId,
    blobIds,
  }: {
    conversationId: string;
    blobIds: readonly string[];
  }): ReadonlySet<string> {
    const known = this.#touch(conversationId);
    const result = new Set<string>();
    if (known === undefined) return result;
    for (const id of blobIds) if (known.has(id)) result.add(id);
    return result;
  }

  record({
    conversationId,
    blobIds,
  }: {
    conversationId: string;
    blobIds: readonly string[];
  }): void {
    if (blobIds.length === 0) return;
    let known = this.#touch(conversationId);
    if (known === undefined) {
      known = new Set();
      this.#byConversation.set(conversationId, known);
      for (const [oldest] of this.#byConversation) {
        if (this.#byConversation.size <= this.#maxConversations) break;
        this.#byConversation.delete(oldest);
      }
    }
    for (const id of blobIds) known.add(id);
  }

  #touch(conversationId: string): Set<string> | undefined {
    const known = this.#byConversation.get(conversationId);
    if (known !== undefined) {
      this.#byConversation.delete(conversationId);
      this.#byConversation.set(conversationId, known);
    }
    return known;
  }
}
