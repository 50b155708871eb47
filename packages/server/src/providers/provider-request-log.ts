import type { CacheLedger } from "../cache/cache-ledger.js";
import { sharedPrefixItems } from "./provider-history-items.js";

export interface ProviderRequestRecord {
  /** The usage record of this call (`GET /v1/conversations/{id}/calls`) has the same id. */
  readonly callId?: string;
  readonly at: string;
  readonly provider: string;
  readonly body: unknown;
  readonly sharedPrefixItems: number;
}

interface StoredRecord {
  readonly callId?: string;
  readonly at: string;
  readonly provider: string;
  readonly body: unknown;
  /** The record's entry in the cache ledger. */
  readonly ledgerKey: string;
}

/**
 * Heap a provider body holds of its own, per history item: the item objects and arrays the
 * provider package built. Their text is the conversation's (the same strings its head holds),
 * which is why a conversation's records leave the ledger with its head. Measured with the bench's
 * memory part (`pnpm bench --only memory`).
 */
export const bodyItemBytes = 192;
/** The rest of a body: its own fields and tool list objects (their texts are the spec's). */
export const bodyBaseBytes = 16 * 1024;

/**
 * The last provider request bodies of each conversation, in memory, for
 * `GET /v1/conversations/{id}/provider-requests` and the next call's prefix check: at most
 * `perConversation` per conversation, and all of them within the gateway's cache budget (each
 * record is an entry of the conversation in the ledger, least recently used out first, and a
 * conversation's records go when its head does). Bodies are what the provider package
 * serialised; keys and auth headers never reach them.
 */
export class ProviderRequestLog {
  readonly #ledger: CacheLedger;
  readonly #perConversation: number;
  readonly #entries = new Map<string, StoredRecord[]>();
  #sequence = 0;

  constructor({ ledger, perConversation = 20 }: { ledger: CacheLedger; perConversation?: number }) {
    this.#ledger = ledger;
    this.#perConversation = perConversation;
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
    let list = this.#entries.get(key);
    if (list === undefined) this.#entries.set(key, (list = []));
    this.#sequence += 1;
    // `sharedPrefixItems` compares whole bodies: computed when someone asks, not per call.
    const entry: StoredRecord = {
      ...(callId === undefined ? {} : { callId }),
      at: at.toISOString(),
      provider,
      body,
      ledgerKey: `provider-request\u0000${this.#sequence}`,
    };
    list.push(entry);
    while (list.length > this.#perConversation) this.#ledger.delete(list.shift()!.ledgerKey);
    this.#ledger.set({
      key: entry.ledgerKey,
      kind: "provider-request",
      group: key,
      bytes: bodyBytes(body),
      evict: () => this.#drop(key, entry),
    });
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
      this.#ledger.touch(entry.ledgerKey);
      const previous = list[first + offset - 1];
      return {
        ...(entry.callId === undefined ? {} : { callId: entry.callId }),
        at: entry.at,
        provider: entry.provider,
        body: entry.body,
        sharedPrefixItems:
          previous === undefined ? 0 : sharedPrefixItems(previous.body, entry.body),
      };
    });
    return { requests, omitted: first - wanted };
  }

  /** The body of call `callId` while the log still holds it (the prefix check's input). */
  body(key: string, callId: string): unknown {
    const entry = this.#entries.get(key)?.find((record) => record.callId === callId);
    if (entry !== undefined) this.#ledger.touch(entry.ledgerKey);
    return entry?.body;
  }

  #drop(key: string, entry: StoredRecord): void {
    const list = this.#entries.get(key);
    if (list === undefined) return;
    const index = list.indexOf(entry);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.#entries.delete(key);
  }
}

/** The heap a body holds of its own (see `bodyItemBytes`): O(1), from its history list's length. */
function bodyBytes(body: unknown): number {
  if (typeof body !== "object" || body === null) return bodyBaseBytes;
  const record = body as { input?: unknown; messages?: unknown };
  const items = Array.isArray(record.input)
    ? record.input.length
    : Array.isArray(record.messages)
      ? record.messages.length
      : 0;
  return bodyBaseBytes + items * bodyItemBytes;
}
