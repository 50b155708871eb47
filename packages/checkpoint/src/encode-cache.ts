import { sha256Hex } from "@cursor/run";
import { encodeBase64Url, parseVersionPart, tokenPartSeparator } from "./token-codec.js";
import { tokenHeaderSchema, tokenSegmentSize } from "./token-header.js";
import type { TokenHeader } from "./token-header.js";
import { encodeSegmentContent } from "./token-segment.js";
import type { SegmentBlob } from "./token-segment.js";
import { packedIdAt, packIds, unpackIds } from "./packed-ids.js";
import { deflateSegment } from "./segment-deflate.js";

/** What the cache did since it was created: how much work re-encoding actually saved. */
export interface CheckpointEncodeCacheStats {
  /** Segments taken from the cache as they were. */
  readonly segmentsReused: number;
  /** Segments compressed (cache misses, or every segment without a cache). */
  readonly segmentsCompressed: number;
  /** Uncompressed bytes fed to zlib. */
  readonly bytesCompressed: number;
  /** Segments held now. */
  readonly entries: number;
  /** Bytes held now: the encoded parts, their keys and bookkeeping (an estimate of the heap). */
  readonly cachedBytes: number;
}

/**
 * What a cache keeps. `shared` (the default): every segment it encoded, for any number of
 * conversations, until `maxBytes`. `conversation`: a cache that serves one growing head keeps
 * only the full segments of its latest token (a segment that is not full changes with the next
 * append, and the segments of an earlier head are never asked for again), so it holds about the
 * compressed size of that head and never more.
 */
export type CheckpointEncodeCacheScope = "shared" | "conversation";

/**
 * Lets `encodeCheckpoint` reuse the compressed segments of earlier encodings: a full segment of a
 * conversation never changes, so after an append only the last segment of messages and of turns
 * is compressed again. Segments are keyed by the ids of their blobs (content, not object
 * identity), so a history hydrated on another request still hits. Holds no secret.
 */
export interface CheckpointEncodeCache {
  readonly stats: CheckpointEncodeCacheStats;
  clear(): void;
  /**
   * Drops the compressed bytes of every segment held, keeping what names them (blob ids, digest,
   * head-digest memos). For a cache whose tokens go to a client that sends them back: the client
   * holds those bytes, `restoreParts` takes them back from its token, and the cache does not keep
   * a second copy. A segment whose bytes are not restored is compressed again when needed.
   */
  releaseParts(): void;
  /**
   * Takes back the compressed bytes of released segments from `token`: one this cache encoded,
   * byte for byte, or one verified whole (`decodeCheckpoint`). Segments are matched by the
   * SHA-256 of their compressed bytes, which the token's header lists. A token of another format
   * or a malformed one restores nothing. Returns how many segments were restored.
   */
  restoreParts(token: string): number;
}

export type SegmentKind = "m" | "t";

/** A compressed token segment and what the header says about it. */
export interface EncodedSegment extends SegmentName {
  /** base64url of the compressed bytes: what the token carries. */
  readonly part: string;
}

/** A segment without its bytes (released: see `CheckpointEncodeCache.releaseParts`). */
interface SegmentName {
  readonly kind: SegmentKind;
  /** The blob ids it holds, packed (`packIds`; `segmentIds` gives them back as hex). */
  readonly packedIds: Buffer;
  /** How many blobs it holds. */
  readonly count: number;
  /** SHA-256 hex of the compressed bytes. */
  readonly digest: string;
  readonly compressedLength: number;
  /** Decompressed length. */
  readonly size: number;
  /**
   * Message segments: head digests before the segment and after it, in pairs (a memo of at most
   * `maxChainMemos` pairs; an array, not a Map: a long history keeps a segment per 32 messages).
   */
  readonly chains: string[];
}

const maxChainMemos = 4;

/** A partial (last) segment this store encoded: its items and their ids. */
interface OpenSegment {
  readonly kind: SegmentKind;
  readonly items: readonly unknown[];
  readonly packedIds: Buffer;
}

interface ObjectsEntry {
  readonly kind: SegmentKind;
  /** Key of the segment in the LRU map (not the segment: an evicted one stays evicted). */
  readonly key: string;
  readonly items: readonly unknown[];
}

export class SegmentStore {
  readonly #maxBytes: number;
  readonly #scope: CheckpointEncodeCacheScope;
  /** Segments by key, least recently used first; a released one has no `part`. */
  readonly #entries = new Map<string, EncodedSegment | SegmentName>();
  /** Keys of the segments the encoding in progress used (`conversation` scope). */
  #used = new Set<string>();
  #byFirstObject = new WeakMap<object, ObjectsEntry>();
  /**
   * The last partial segment encoded after each first item: a conversation's open segment is
   * encoded again turn after turn, one item longer, and the ids of the items it still holds are
   * read here instead of computed again (turn records have no log holding their ids).
   */
  #openByFirstObject = new WeakMap<object, OpenSegment>();
  #cachedBytes = 0;
  #segmentsReused = 0;
  #segmentsCompressed = 0;
  #bytesCompressed = 0;

  constructor(maxBytes: number, scope: CheckpointEncodeCacheScope = "shared") {
    this.#maxBytes = maxBytes;
    this.#scope = scope;
  }

  /** Called before an encoding: from here on, the segments it uses are tracked. */
  beginEncoding(): void {
    this.#used = new Set();
  }

  /** Called after a successful encoding: a `conversation` cache drops what that token did not use. */
  endEncoding(): void {
    if (this.#scope !== "conversation") return;
    for (const [key, segment] of this.#entries) {
      if (!this.#used.has(key)) this.#delete(key, segment);
    }
    this.#used = new Set();
  }

  get stats(): CheckpointEncodeCacheStats {
    return {
      segmentsReused: this.#segmentsReused,
      segmentsCompressed: this.#segmentsCompressed,
      bytesCompressed: this.#bytesCompressed,
      entries: this.#entries.size,
      cachedBytes: this.#cachedBytes,
    };
  }

  clear(): void {
    this.#entries.clear();
    this.#byFirstObject = new WeakMap();
    this.#openByFirstObject = new WeakMap();
    this.#cachedBytes = 0;
  }

  releaseParts(): void {
    for (const [key, segment] of this.#entries) {
      if (!hasPart(segment)) continue;
      const { part: _part, ...name } = segment;
      this.#entries.set(key, name);
      this.#cachedBytes -= segmentCost(key, segment) - segmentCost(key, name);
    }
  }

  restoreParts(token: string): number {
    const parts = tokenSegmentParts(token);
    if (parts === undefined) return 0;
    const released = new Map<string, string>();
    for (const [key, segment] of this.#entries) {
      if (!hasPart(segment)) released.set(segment.digest, key);
    }
    let restored = 0;
    for (const { digest, compressedLength, part } of parts) {
      const key = released.get(digest);
      const name = key === undefined ? undefined : this.#entries.get(key);
      // The base64url of `compressedLength` bytes: anything else is not this segment's.
      if (name === undefined || name.compressedLength !== compressedLength) continue;
      if (part.length !== Math.ceil((compressedLength * 4) / 3)) continue;
      const segment: EncodedSegment = { ...name, part };
      this.#entries.set(key!, segment);
      this.#cachedBytes += segmentCost(key!, segment) - segmentCost(key!, name);
      released.delete(digest);
      restored += 1;
    }
    return restored;
  }

  /**
   * The segment of exactly these (frozen) items, when this cache encoded these very objects
   * before: frozen objects cannot have changed, so no id is computed and no key is built. This is
   * what makes re-encoding a long history cheap: one reference check per message.
   */
  segmentOfObjects(kind: SegmentKind, items: readonly unknown[]): EncodedSegment | undefined {
    const first = items[0];
    if (typeof first !== "object" || first === null) return undefined;
    const known = this.#byFirstObject.get(first);
    if (known === undefined || known.kind !== kind || known.items.length !== items.length) {
      return undefined;
    }
    for (let index = 0; index < items.length; index += 1) {
      if (known.items[index] !== items[index]) return undefined;
    }
    return this.#hit(known.key);
  }

  /**
   * The id of each of `items` this store computed when it encoded the partial segment that
   * started with the same first item: for an index where that segment held the very (frozen)
   * object, its id; undefined elsewhere.
   */
  knownIds(kind: SegmentKind, items: readonly unknown[]): (offset: number) => string | undefined {
    const first = items[0];
    const open =
      typeof first === "object" && first !== null ? this.#openByFirstObject.get(first) : undefined;
    if (open === undefined || open.kind !== kind) return () => undefined;
    return (offset) =>
      offset < open.items.length && open.items[offset] === items[offset]
        ? packedIdAt(open.packedIds, offset)
        : undefined;
  }

  /** Remembers the ids of a partial segment of frozen items (`knownIds`); a full one is kept whole. */
  rememberOpen(kind: SegmentKind, items: readonly unknown[], segment: EncodedSegment): void {
    const first = items[0];
    if (typeof first !== "object" || first === null) return;
    if (items.length >= tokenSegmentSize || !items.every(isFrozenObject)) {
      this.#openByFirstObject.delete(first);
      return;
    }
    this.#openByFirstObject.set(first, { kind, items: [...items], packedIds: segment.packedIds });
  }

  /** The segment holding these blobs; `blobs` is called only on a miss. */
  segment({
    kind,
    ids,
    items,
    blobs,
  }: {
    kind: SegmentKind;
    ids: readonly string[];
    /** The values the blobs encode; remembered by identity when all are frozen. */
    items: readonly unknown[];
    blobs: () => SegmentBlob[];
  }): EncodedSegment {
    // A digest of the ids, not the ids themselves: the key of a 32-blob segment would otherwise
    // be 2 KiB of hex held twice (map key and object memo) for every segment kept.
    const key = `${kind}${sha256Hex(ids.join(""))}`;
    const cached = this.#hit(key);
    if (cached !== undefined) {
      this.#rememberObjects(kind, key, items);
      return cached;
    }
    const content = encodeSegmentContent(blobs());
    const compressed = deflateSegment(content);
    const segment: EncodedSegment = {
      kind,
      packedIds: packIds(ids),
      count: ids.length,
      part: encodeBase64Url(compressed),
      digest: sha256Hex(compressed),
      compressedLength: compressed.byteLength,
      size: content.byteLength,
      chains: [],
    };
    this.#segmentsCompressed += 1;
    this.#bytesCompressed += content.byteLength;
    // A segment that is not full changes with the next append: a one-head cache does not keep it.
    if (this.#scope === "shared" || ids.length === tokenSegmentSize) {
      this.#insert(key, segment);
      this.#rememberObjects(kind, key, items);
    }
    return segment;
  }

  #hit(key: string): EncodedSegment | undefined {
    const cached = this.#entries.get(key);
    // A released segment is compressed again (and replaced) unless its bytes were restored.
    if (cached === undefined || !hasPart(cached)) return undefined;
    // Re-insert: Map order is the eviction order, oldest use first.
    this.#entries.delete(key);
    this.#entries.set(key, cached);
    if (this.#scope === "conversation") this.#used.add(key);
    this.#segmentsReused += 1;
    return cached;
  }

  #rememberObjects(kind: SegmentKind, key: string, items: readonly unknown[]): void {
    const first = items[0];
    const frozen = items.every(isFrozenObject);
    if (!frozen || typeof first !== "object" || first === null) return;
    this.#byFirstObject.set(first, { kind, key, items: [...items] });
  }

  /** Remembers the head digest a segment chains to from `before`. */
  rememberChain(segment: EncodedSegment, before: string, after: string): void {
    if (chainedHead(segment, before) === after) return;
    if (segment.chains.length >= 2 * maxChainMemos) segment.chains.length = 0;
    segment.chains.push(before, after);
  }

  #insert(key: string, segment: EncodedSegment): void {
    const cost = segmentCost(key, segment);
    if (cost > this.#maxBytes) return;
    const replaced = this.#entries.get(key);
    if (replaced !== undefined) this.#delete(key, replaced);
    this.#entries.set(key, segment);
    if (this.#scope === "conversation") this.#used.add(key);
    this.#cachedBytes += cost;
    for (const [oldKey, old] of this.#entries) {
      if (this.#cachedBytes <= this.#maxBytes) break;
      this.#delete(oldKey, old);
    }
  }

  #delete(key: string, segment: EncodedSegment | SegmentName): void {
    this.#entries.delete(key);
    this.#cachedBytes -= segmentCost(key, segment);
  }
}

/**
 * What a held segment costs: its base64url part and its key (one byte a character), its packed
 * ids (32 bytes each) and the objects around them.
 */
function segmentCost(key: string, segment: EncodedSegment | SegmentName): number {
  const part = hasPart(segment) ? segment.part.length : 0;
  return part + key.length + segment.digest.length + segment.packedIds.byteLength + 240;
}

/** The head digest a segment chains to from `before`, if remembered. */
export function chainedHead(segment: EncodedSegment, before: string): string | undefined {
  const { chains } = segment;
  for (let at = 0; at < chains.length; at += 2) if (chains[at] === before) return chains[at + 1];
  return undefined;
}

/** The blob ids of a segment, in order, as lowercase hex. */
export function segmentIds(segment: EncodedSegment): string[] {
  return unpackIds(segment.packedIds);
}

const isFrozenObject = (item: unknown): boolean =>
  typeof item === "object" && item !== null && Object.isFrozen(item);

function hasPart(segment: EncodedSegment | SegmentName): segment is EncodedSegment {
  return "part" in segment;
}

/**
 * The segments of a version 2 token as its header lists them, each with its part; undefined
 * for a token of another version or one whose header does not parse. Nothing is authenticated
 * here (see `restoreParts`).
 */
function tokenSegmentParts(
  token: string,
): { digest: string; compressedLength: number; part: string }[] | undefined {
  const parts = token.split(tokenPartSeparator);
  if (parseVersionPart(parts[0] ?? "") !== 2 || parts.length < 3) return undefined;
  let header: TokenHeader;
  try {
    header = tokenHeaderSchema.parse(
      JSON.parse(Buffer.from(parts[2]!, "base64url").toString("utf8")),
    );
  } catch {
    return undefined;
  }
  if (header.segments.length !== parts.length - 3) return undefined;
  return header.segments.map(([, , compressedLength, , digest], index) => ({
    digest,
    compressedLength,
    part: parts[3 + index]!,
  }));
}

const stores = new WeakMap<CheckpointEncodeCache, SegmentStore>();

/**
 * Creates a cache for `encodeCheckpoint`. One per process is enough (`scope: "shared"`, the
 * default); `maxBytes` (default 64 MiB) bounds what it holds, least recently used segments
 * leaving first. A cache that only ever encodes one conversation's growing head should say
 * `scope: "conversation"` (see `CheckpointEncodeCacheScope`).
 */
export function createCheckpointEncodeCache({
  maxBytes = 64 * 1024 * 1024,
  scope = "shared",
}: { maxBytes?: number; scope?: CheckpointEncodeCacheScope } = {}): CheckpointEncodeCache {
  const store = new SegmentStore(maxBytes, scope);
  const cache: CheckpointEncodeCache = Object.freeze({
    get stats() {
      return store.stats;
    },
    clear: () => store.clear(),
    releaseParts: () => store.releaseParts(),
    restoreParts: (token: string) => store.restoreParts(token),
  });
  stores.set(cache, store);
  return cache;
}

/** The store behind a cache handle; a fresh unbounded one for a single encoding without one. */
export function segmentStoreOf(cache: CheckpointEncodeCache | undefined): SegmentStore {
  if (cache === undefined) return new SegmentStore(Number.POSITIVE_INFINITY);
  const store = stores.get(cache);
  if (store === undefined) {
    throw new TypeError("not a cache made by createCheckpointEncodeCache");
  }
  return store;
}
