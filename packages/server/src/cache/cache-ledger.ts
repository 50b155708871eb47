/**
 * The default cache budget: 256 MiB. Node's default heap limit on a 64-bit machine is 2–4 GiB;
 * this leaves most of it to requests in flight (a provider body is built and serialised per call,
 * a large one several times its history) while holding, at about 1.5 to 1.8 times their
 * history's JSON size each (the bench's memory part), some 150 open conversations of a 1 MB
 * history, or 1 400 of 100 kB.
 */
export const defaultCacheBytes = 256 * 1024 * 1024;

/** What the gateway keeps in memory under its one byte budget (also the metric's `kind` label). */
export const cacheKinds = ["head", "checkpoint", "provider-request", "prompt-spec"] as const;
export type CacheKind = (typeof cacheKinds)[number];

/** One thing a cache holds, as the ledger accounts for it. */
export interface CacheEntry {
  /** Unique among the ledger's entries (a cache prefixes its keys with its kind). */
  readonly key: string;
  readonly kind: CacheKind;
  /** Estimated bytes of memory the entry keeps alive (a finite number ≥ 0). */
  readonly bytes: number;
  /**
   * The conversation the entry belongs to: a pinned group is never evicted, and evicting the
   * group's anchor evicts every entry of the group with it.
   */
  readonly group?: string;
  /**
   * The entry the rest of its group depends on (a conversation's head: its checkpoint segments
   * and provider bodies hold its messages or are only useful with it).
   */
  readonly anchor?: boolean;
  /**
   * Drops what the entry holds. Called once, when the ledger evicts it (not on `delete`); it must
   * not throw, and must not call back into the ledger.
   */
  readonly evict: () => void;
}

export interface CacheKindStats {
  readonly bytes: number;
  readonly entries: number;
  /** Entries of this kind evicted since the ledger was created. */
  readonly evictions: number;
}

export interface CacheLedgerStats {
  readonly maxBytes: number;
  readonly heldBytes: number;
  readonly entries: number;
  readonly kinds: Readonly<Record<CacheKind, CacheKindStats>>;
}

interface KindTotals {
  bytes: number;
  entries: number;
  evictions: number;
}

/**
 * The one owner of the gateway's memory budget: every cache (conversation heads, their checkpoint
 * segments, provider request bodies, prompt specs) registers, resizes, touches and deletes its
 * entries here, and only the ledger evicts. Least recently used entries leave first, whatever
 * their kind, until the entries held fit `maxBytes`; entries of a pinned group (a conversation
 * with a run in progress) stay even when that exceeds the budget. Evicting is always safe: what
 * was evicted is rebuilt from the store on next use.
 */
export class CacheLedger {
  readonly maxBytes: number;
  /** Insertion order is recency: the first entry is the least recently used. */
  readonly #entries = new Map<string, CacheEntry>();
  readonly #groups = new Map<string, Set<string>>();
  readonly #pins = new Map<string, number>();
  readonly #kinds = new Map<CacheKind, KindTotals>(
    cacheKinds.map((kind) => [kind, { bytes: 0, entries: 0, evictions: 0 }]),
  );
  readonly #onEvict: ((entry: CacheEntry) => void) | undefined;
  #held = 0;
  #evicting = false;

  constructor({
    maxBytes,
    onEvict,
  }: {
    maxBytes: number;
    /** Told of every eviction, after it happened (metrics). */
    onEvict?: (entry: CacheEntry) => void;
  }) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
      throw new RangeError(`the cache budget must be a whole number of bytes ≥ 0, got ${maxBytes}`);
    }
    this.maxBytes = maxBytes;
    this.#onEvict = onEvict;
  }

  get heldBytes(): number {
    return this.#held;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** The entry's accounted bytes, if the ledger holds it. */
  bytesOf(key: string): number | undefined {
    return this.#entries.get(key)?.bytes;
  }

  /**
   * Registers an entry, or replaces the one with its key (new size, evict callback), as the most
   * recently used; then evicts until the budget holds. An entry larger than the whole budget is
   * evicted at once (unless pinned) rather than after everything else.
   */
  set(entry: CacheEntry): void {
    checkBytes(entry.bytes, entry.key);
    this.#remove(entry.key);
    this.#entries.set(entry.key, entry);
    this.#account(entry, +1);
    if (entry.group !== undefined) {
      let members = this.#groups.get(entry.group);
      if (members === undefined) this.#groups.set(entry.group, (members = new Set()));
      members.add(entry.key);
    }
    if (entry.bytes > this.maxBytes && !this.#pinned(entry)) this.#evict(entry);
    this.#enforce();
  }

  /** A new size for an entry, keeping its place in the recency order. False: not held. */
  resize(key: string, bytes: number): boolean {
    checkBytes(bytes, key);
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#account(entry, -1);
    const resized = { ...entry, bytes };
    this.#entries.set(key, resized);
    this.#account(resized, +1);
    this.#enforce();
    return true;
  }

  /** Marks an entry most recently used. False: not held (evicted, or never set). */
  touch(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return true;
  }

  /** Forgets an entry its cache dropped itself (no evict callback). False: not held. */
  delete(key: string): boolean {
    return this.#remove(key);
  }

  /** Keeps the group's entries from eviction until as many `unpin`s (a run in progress). */
  pin(group: string): void {
    this.#pins.set(group, (this.#pins.get(group) ?? 0) + 1);
  }

  unpin(group: string): void {
    const count = this.#pins.get(group);
    if (count === undefined) throw new Error(`cache group ${JSON.stringify(group)} is not pinned`);
    if (count > 1) this.#pins.set(group, count - 1);
    else this.#pins.delete(group);
    this.#enforce();
  }

  stats(): CacheLedgerStats {
    const kinds = Object.fromEntries(
      cacheKinds.map((kind) => [kind, { ...this.#kinds.get(kind)! }]),
    ) as Record<CacheKind, CacheKindStats>;
    return { maxBytes: this.maxBytes, heldBytes: this.#held, entries: this.#entries.size, kinds };
  }

  #pinned(entry: CacheEntry): boolean {
    return entry.group !== undefined && this.#pins.has(entry.group);
  }

  #enforce(): void {
    // An evict callback runs inside the loop below; nothing it causes may start a second loop.
    if (this.#evicting) return;
    this.#evicting = true;
    try {
      for (const entry of this.#entries.values()) {
        if (this.#held <= this.maxBytes) break;
        // Deleting while iterating a Map is safe: removed entries are not visited. An empty
        // entry that anchors nothing frees nothing: it stays.
        if (this.#pinned(entry) || (entry.bytes === 0 && entry.anchor !== true)) continue;
        this.#evict(entry);
      }
    } finally {
      this.#evicting = false;
    }
  }

  /** Evicts the entry, and its whole group when it is the group's anchor. */
  #evict(entry: CacheEntry): void {
    const members =
      entry.anchor === true && entry.group !== undefined
        ? [...(this.#groups.get(entry.group) ?? [])]
        : [entry.key];
    for (const key of members) {
      const member = this.#entries.get(key);
      if (member === undefined || !this.#remove(key)) continue;
      this.#kinds.get(member.kind)!.evictions += 1;
      member.evict();
      this.#onEvict?.(member);
    }
  }

  #remove(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#account(entry, -1);
    if (entry.group !== undefined) {
      const members = this.#groups.get(entry.group);
      members?.delete(key);
      if (members?.size === 0) this.#groups.delete(entry.group);
    }
    return true;
  }

  #account(entry: CacheEntry, sign: 1 | -1): void {
    const totals = this.#kinds.get(entry.kind)!;
    totals.bytes += sign * entry.bytes;
    totals.entries += sign;
    this.#held += sign * entry.bytes;
  }
}

function checkBytes(bytes: number, key: string): void {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new RangeError(
      `cache entry ${JSON.stringify(key)}: bytes must be finite and ≥ 0, got ${bytes}`,
    );
  }
}
