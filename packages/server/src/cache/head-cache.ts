import type { ConversationHeadOwner } from "../conversation-head-owner.js";
import type { CacheLedger } from "./cache-ledger.js";
import { jsonSize } from "./json-size.js";

/**
 * Heap a message costs beyond its JSON text: its content address (32 bytes in the history's
 * packed digest table; the log holds it, no memo entry does), the
 * history's id and event-id position indexes, the projection and token-count memos of
 * `@cursor/run` (per conversation: a few pointers per message) and the projected message itself,
 * the provider package's conversion memo (its body items), the prompt fingerprint's link chain
 * (32 bytes and a pointer per item), its share of its turn record's index entries. Calibrated
 * with the bench's memory part (`pnpm bench --only memory`: the ledger's estimate per open
 * conversation beside what it measured: 5–6% above it at 100 and 1 000 turns, 19% at 10, since
 * the memos keep chains only for the 64 sequences mapped most recently, which the ledger does not
 * follow: it errs on the side of the budget); all of it is freed with the head (the memos are
 * keyed by the head's frozen objects).
 */
const messageOverheadBytes = 410;
/**
 * The same for a turn record (its strings are counted by its JSON size; its content id is kept
 * only while it is in the checkpoint's open segment).
 */
const turnOverheadBytes = 80;
/** The owner, its state, its history log, its turn index and their tables and memos when empty. */
const headBaseBytes = 10_240;

interface CachedHead {
  readonly owner: ConversationHeadOwner;
  /** What has been counted so far, so the next count covers only what is new. */
  epoch: number;
  messages: number;
  turns: number;
  historyBytes: number;
  turnBytes: number;
}

/**
 * The conversation heads this process keeps in memory (the store is the truth: a head that is
 * not here, or no longer matches the store, is loaded again), each accounted in the gateway's
 * cache ledger with its checkpoint segments: a head is sized by what its history and turn records
 * hold, counted incrementally (a turn counts only what it appended), and its checkpoint encode
 * cache by what that cache holds after each encoding. A conversation with a run in progress is
 * pinned: nothing of it is evicted until the run ends.
 */
export class HeadCache {
  readonly #ledger: CacheLedger;
  readonly #heads = new Map<string, CachedHead>();

  constructor({ ledger }: { ledger: CacheLedger }) {
    this.#ledger = ledger;
  }

  /** The cached owner of conversation `key` (not marked used: `remember` does that). */
  get(key: string): ConversationHeadOwner | undefined {
    return this.#heads.get(key)?.owner;
  }

  /**
   * Keeps `owner` as conversation `key`'s head (replacing another owner), sized as it is now and
   * marked most recently used; it may be evicted at once when the budget cannot hold it.
   */
  remember(key: string, owner: ConversationHeadOwner): ConversationHeadOwner {
    let cached = this.#heads.get(key);
    if (cached?.owner !== owner) {
      // Another owner's checkpoint segments are not this one's.
      if (cached !== undefined) this.#ledger.delete(checkpointKey(key));
      cached = { owner, epoch: -1, messages: 0, turns: 0, historyBytes: 0, turnBytes: 0 };
      this.#heads.set(key, cached);
    }
    count(cached);
    const entry = cached;
    this.#ledger.set({
      key: headKey(key),
      kind: "head",
      group: key,
      anchor: true,
      bytes: headBaseBytes + entry.historyBytes + entry.turnBytes,
      evict: () => {
        if (this.#heads.get(key) === entry) this.#heads.delete(key);
      },
    });
    // Its checkpoint segments too (a new conversation's first run encoded them before its head
    // was kept here).
    if (owner.encodeCache.stats.cachedBytes > 0 || this.#ledger.has(checkpointKey(key))) {
      this.checkpointEncoded(key, owner);
    }
    return owner;
  }

  /** Drops conversation `key`'s head (it no longer matches the store). */
  forget(key: string): void {
    this.#heads.delete(key);
    this.#ledger.delete(headKey(key));
    this.#ledger.delete(checkpointKey(key));
  }

  /**
   * Accounts for what `owner`'s checkpoint encode cache holds after an encoding. Only the
   * cached owner's cache is accounted; another owner's is garbage once its encoding is done.
   */
  checkpointEncoded(key: string, owner: ConversationHeadOwner): void {
    const cached = this.#heads.get(key);
    if (cached?.owner !== owner || !this.#ledger.has(headKey(key))) return;
    const cache = owner.encodeCache;
    this.#ledger.set({
      key: checkpointKey(key),
      kind: "checkpoint",
      group: key,
      bytes: cache.stats.cachedBytes,
      evict: () => cache.clear(),
    });
  }

  /** A run of conversation `key` started: nothing of it is evicted until `unpin`. */
  pin(key: string): void {
    this.#ledger.pin(key);
  }

  unpin(key: string): void {
    this.#ledger.unpin(key);
  }
}

/** Counts what the owner's head holds beyond what was counted before (O(what is new)). */
function count(cached: CachedHead): void {
  const { history, turns } = cached.owner.state.head;
  if (history.epoch !== cached.epoch || history.length < cached.messages) {
    // A new epoch (a compaction) replaced the history: it is counted whole, once.
    cached.epoch = history.epoch;
    cached.messages = 0;
    cached.historyBytes = 0;
  }
  const { messages } = history;
  for (let index = cached.messages; index < messages.length; index += 1) {
    cached.historyBytes += jsonSize(messages[index]) + messageOverheadBytes;
  }
  cached.messages = messages.length;
  // Turn records outlive compaction: they only ever grow.
  for (let index = cached.turns; index < turns.length; index += 1) {
    cached.turnBytes += jsonSize(turns[index]) + turnOverheadBytes;
  }
  cached.turns = turns.length;
}

function headKey(key: string): string {
  return `head\u0000${key}`;
}

function checkpointKey(key: string): string {
  return `checkpoint\u0000${key}`;
}
