import { sharedPrefixItems } from "./provider-history-items.js";

type StoredRecord = Omit<ProviderRequestRecord, "sharedPrefixItems">;

export interface ProviderRequestRecord {
  /** The usage record of this call (`GET /v1/conversations/{id}/calls`) has the same id. */
  readonly callId?: string;
  readonly at: string;
  readonly provider: string;
  readonly body: unknown;
  readonly sharedPrefixItems: number;
}

/**
 * The last provider request bodies of each conversation, in memory (bounded per conversation and
 * in conversations), for `GET /v1/conversations/{id}/provider-requests`. Bodies are what the
 * provider package serialised; keys and auth headers never reach them.
 */
export class ProviderRequestLog {
  readonly #perConversation: number;
  readonly #maxConversations: number;
  readonly #entries = new Map<string, StoredRecord[]>();

  constructor({
    perConversation = 20,
    maxConversations = 256,
  }: { perConversation?: number; maxConversations?: number } = {}) {
    this.#perConversation = perConversation;
    this.#maxConversations = maxConversations;
  }

  record({
    key,
    provider,
    body,
    at,
    callId,
  }: {
    key: string;
    provider: string;
    body: unknown;
    at: Date;
    callId?: string;
  }): void {
    const list = this.#entries.get(key) ?? [];
    this.#entries.delete(key); // re-insert: Map order doubles as least-recently-used order
    // `sharedPrefixItems` compares whole bodies: computed when someone asks, not per call.
    const entry: StoredRecord = {
      ...(callId === undefined ? {} : { callId }),
      at: at.toISOString(),
      provider,
      body,
    };
    list.push(entry);
    if (list.length > this.#perConversation) list.splice(0, list.length - this.#perConversation);
    this.#entries.set(key, list);
    if (this.#entries.size > this.#maxConversations) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /**
   * The last `limit` records, oldest first, at most `maxBytes` of body JSON: older records past
   * the cap are left out (`omitted`), the newest is always included. Sizes are measured here, on
   * the read, so the call path never serialises a body twice.
   */
  list({
    key,
    limit,
    maxBytes = Number.POSITIVE_INFINITY,
  }: {
    key: string;
    limit: number;
    maxBytes?: number;
  }): { requests: readonly ProviderRequestRecord[]; omitted: number } {
    const list = this.#entries.get(key) ?? [];
    const wanted = Math.max(0, list.length - limit);
    let first = list.length;
    let total = 0;
    while (first > wanted) {
      const size = Buffer.byteLength(JSON.stringify(list[first - 1]!.body) ?? "");
      if (first < list.length && total + size > maxBytes) break;
      total += size;
      first -= 1;
    }
    const requests = list.slice(first).map((entry, offset) => {
      const previous = list[first + offset - 1];
      return {
        ...entry,
        sharedPrefixItems:
          previous === undefined ? 0 : sharedPrefixItems(previous.body, entry.body),
      };
    });
    return { requests, omitted: first - wanted };
  }

  /** The body of call `callId` while the log still holds it (the prefix doctor's input). */
  body(key: string, callId: string): unknown {
    return this.#entries.get(key)?.find((entry) => entry.callId === callId)?.body;
  }
}
