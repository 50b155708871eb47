import type { ModelRequest, ProviderAdapter } from "@cursor/run";
import type { CacheLedger } from "../cache/cache-ledger.js";
import { jsonSize } from "../cache/json-size.js";
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
  readonly request: ModelRequest;
  /** How many messages the request had when it was sent (see `bodyOf`). */
  readonly messageCount: number;
  readonly adapter: Pick<ProviderAdapter, "serialize">;
  /** The record's entry in the cache ledger. */
  readonly ledgerKey: string;
}

/**
 * The last provider requests of each conversation, in memory, for
 * `GET /v1/conversations/{id}/provider-requests` and for explaining a broken prefix: at most
 * `perConversation` per conversation, and all of them within the gateway's cache budget (each
 * record is an entry of the conversation in the ledger, least recently used out first, and a
 * conversation's records go when its head does).
 *
 * A record keeps the call's `ModelRequest` and its adapter, not the body: `serialize` is pure,
 * so the body is rebuilt exactly as it was sent when someone asks for it (rarely: this endpoint,
 * a prefix that broke). The request's messages are the projections the conversation's head
 * already holds (memoised per message), so a record costs a pointer per history item where a
 * body would cost its every item again. Bodies are what the provider package serialises; keys
 * and auth headers never reach them.
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
    request,
    adapter,
    at,
    callId,
  }: {
    key: string;
    provider: string;
    /** What the adapter serialised for the call. */
    request: ModelRequest;
    adapter: Pick<ProviderAdapter, "serialize">;
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
      request,
      messageCount: request.messages.length,
      adapter,
      ledgerKey: `provider-request\u0000${this.#sequence}`,
    };
    list.push(entry);
    while (list.length > this.#perConversation) this.#ledger.delete(list.shift()!.ledgerKey);
    this.#ledger.set({
      key: entry.ledgerKey,
      kind: "provider-request",
      group: key,
      bytes: requestBytes(request),
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
    const bodies: unknown[] = [];
    while (first > wanted) {
      const body = bodyOf(list[first - 1]!);
      const size = Buffer.byteLength(JSON.stringify(body) ?? "");
      if (first < list.length && total + size > maxBytes) break;
      total += size;
      bodies.unshift(body);
      first -= 1;
    }
    // The record before the first one shown is compared with it too.
    const before = first > 0 ? bodyOf(list[first - 1]!) : undefined;
    const requests = list.slice(first).map((entry, offset) => {
      this.#ledger.touch(entry.ledgerKey);
      const body = bodies[offset];
      const previous = offset === 0 ? before : bodies[offset - 1];
      return {
        ...(entry.callId === undefined ? {} : { callId: entry.callId }),
        at: entry.at,
        provider: entry.provider,
        body,
        sharedPrefixItems: previous === undefined ? 0 : sharedPrefixItems(previous, body),
      };
    });
    return { requests, omitted: first - wanted };
  }

  /** The body of call `callId` while the log still holds it (the prefix check's input). */
  body(key: string, callId: string): unknown {
    const entry = this.#entries.get(key)?.find((record) => record.callId === callId);
    if (entry === undefined) return undefined;
    this.#ledger.touch(entry.ledgerKey);
    return bodyOf(entry);
  }

  #drop(key: string, entry: StoredRecord): void {
    const list = this.#entries.get(key);
    if (list === undefined) return;
    const index = list.indexOf(entry);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.#entries.delete(key);
  }
}

/**
 * The body as it was sent. A request is a value, but its message list is not copied when it is
 * recorded: should a caller ever extend that list in place, the request is cut back to the
 * messages it had (a history only grows at its end).
 */
function bodyOf(entry: StoredRecord): unknown {
  const { request, messageCount } = entry;
  const sent =
    request.messages.length === messageCount
      ? request
      : { ...request, messages: request.messages.slice(0, messageCount) };
  return entry.adapter.serialize(sent).body;
}

/**
 * What a record keeps alive of its own: the request object, a pointer per message, and its newest
 * message (new text the head may not hold: a summariser call's transcript is its one big
 * message). The messages before it are the head's. O(1) in the history's length.
 */
function requestBytes(request: ModelRequest): number {
  const newest = request.messages.at(-1);
  return 1_024 + 8 * request.messages.length + (newest === undefined ? 0 : jsonSize(newest));
}
