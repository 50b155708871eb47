import { createHash } from "node:crypto";
import { CacheMarkerLimitError } from "./fake-provider-errors.js";

/**
 * One unit of a rendered prompt, in prompt order: OpenAI tools / schema / instructions / one
 * input item or message; Anthropic one tool, system block or message content block.
 */
export interface PrefixSegment {
  /** What sits here, for diagnostics: `tools`, `system`, `message 3`, `input item 41`, … */
  readonly label: string;
  /** The exact bytes rendered from the received body (Anthropic: `cache_control` removed). */
  readonly bytes: string;
  readonly tokens: number;
  /**
   * Anthropic block type. Runs of consecutive `tool_use` or `tool_result` blocks count as one
   * lookback position.
   */
  readonly blockType?: string;
  /** Anthropic: a `cache_control` marker sits on this block (`ttlMs` from its `ttl`, if any). */
  readonly marker?: { readonly ttlMs?: number | undefined };
}

export type CacheMode = "openai" | "anthropic";

/** Where a request first differs from the previous request of its namespace. */
export interface PrefixDivergence {
  /** Index of the first differing segment (equal to the shorter length when one list ends). */
  readonly segment: number;
  /** What sits there in this request (`(end of request)` when it is shorter). */
  readonly label: string;
  /** What sat there in the previous request (`(end of request)` when it was shorter). */
  readonly previousLabel: string;
}

/** The simulation's verdict on one request. */
export interface PrefixCacheResult {
  readonly mode: CacheMode;
  readonly namespace: string;
  /** Every input token of the request (cached and written ones included). */
  readonly inputTokens: number;
  /** Read from the cache (OpenAI `cached_tokens`, Anthropic `cache_read_input_tokens`). */
  readonly cachedTokens: number;
  /** Anthropic `cache_creation_input_tokens`; always 0 in OpenAI mode. */
  readonly cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written with a 1 h TTL (billed 2× instead of 1.25×). */
  readonly cacheWriteTokens1h: number;
  /** Neither read nor written (Anthropic `input_tokens`). */
  readonly uncachedTokens: number;
  /**
   * The physical limit: the previous request's input (of this namespace) rounded down to the
   * cache granularity (OpenAI 1024 + 128·k; Anthropic its last written marker), capped by this
   * request's own size. 0 for the first request of a namespace.
   */
  readonly bestPossibleCachedTokens: number;
  readonly segments: number;
  readonly previousSegments: number | null;
  /** Leading segments identical to the previous request's. */
  readonly sharedSegments: number;
  /** The previous request is a prefix of this one (or there was none). */
  readonly pureAppend: boolean;
  readonly divergence: PrefixDivergence | null;
  /** Anthropic: segment indexes that carry a marker. */
  readonly markers: readonly number[];
  /** Cache entries of this namespace that had expired when this request arrived. */
  readonly expiredEntries: number;
}

/** Totals over a session (one namespace) or over everything. */
export interface CacheTotals {
  readonly requests: number;
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly bestPossibleCachedTokens: number;
  /** Token-weighted hit ratio Σ cached ÷ Σ input (0 without input). */
  readonly cachedRatio: number;
  /** Σ cached ÷ Σ best possible (1 when nothing was possible); can exceed 1 after reverts. */
  readonly prefixEfficiency: number;
  /**
   * Input cost relative to an uncached baseline (1 = no savings). Prices: OpenAI cached input
   * 0.1×, reported cache writes 1.25×; Anthropic reads 0.1×, writes 1.25× (5 min) or 2× (1 h).
   */
  readonly relativeInputCost: number;
}

export interface SessionCacheStats extends CacheTotals {
  readonly mode: CacheMode;
  readonly namespace: string;
}

export interface CacheStats {
  readonly total: CacheTotals;
  /** One entry per namespace, in order of first request. */
  readonly sessions: readonly SessionCacheStats[];
}

export interface PrefixCacheSimulatorOptions {
  /** Milliseconds since the epoch; inject a fixed clock in tests. Default `Date.now`. */
  readonly clock?: () => number;
  /** Idle lifetime of an entry (reads refresh it). Default 5 minutes. */
  readonly ttlMs?: number;
  /** OpenAI: nothing is cached below this many tokens. Default 1024. */
  readonly openaiMinTokens?: number;
  /** OpenAI: cached counts grow in steps of this many tokens. Default 128. */
  readonly openaiStepTokens?: number;
  /** Anthropic: markers below this many tokens are not written. Default 1024. */
  readonly anthropicMinTokens?: number;
  /** Anthropic: how many block positions a read looks back from a marker. Default 20. */
  readonly anthropicLookbackPositions?: number;
  /** Anthropic: more markers than this is a 400. Default 4. */
  readonly anthropicMaxMarkers?: number;
}

interface PreviousRequest {
  readonly hashes: readonly string[];
  readonly labels: readonly string[];
  /** What a pure append after it could read at best (before capping by the next request). */
  readonly cacheableTokens: number;
}

interface Namespace {
  readonly mode: CacheMode;
  readonly name: string;
  readonly entries: Map<string, number>;
  previous: PreviousRequest | undefined;
  totals: MutableTotals;
}

interface MutableTotals {
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  bestPossibleCachedTokens: number;
  cost: number;
}

const defaultTtlMs = 5 * 60 * 1000;
const oneHourMs = 60 * 60 * 1000;
const endOfRequest = "(end of request)";
const openaiCachedPrice = 0.1;
const openaiCacheWritePrice = 1.25;
const anthropicReadPrice = 0.1;
const anthropicWrite5mPrice = 1.25;
const anthropicWrite1hPrice = 2;
const runBlockTypes = new Set(["tool_use", "tool_result"]);

const emptyTotals = (): MutableTotals => ({
  requests: 0,
  inputTokens: 0,
  cachedTokens: 0,
  cacheWriteTokens: 0,
  bestPossibleCachedTokens: 0,
  cost: 0,
});

/**
 * A deterministic model of provider prefix caching (see provider-caching.md). Pure apart from
 * its own state: callers hand it rendered segments with token counts, so every figure can be
 * checked against hand-computed cases.
 */
export class PrefixCacheSimulator {
  readonly #clock: () => number;
  readonly #ttlMs: number;
  readonly #openaiMinTokens: number;
  readonly #openaiStepTokens: number;
  readonly #anthropicMinTokens: number;
  readonly #lookback: number;
  readonly #maxMarkers: number;
  #namespaces = new Map<string, Namespace>();

  constructor(options: PrefixCacheSimulatorOptions = {}) {
    this.#clock = options.clock ?? Date.now;
    this.#ttlMs = options.ttlMs ?? defaultTtlMs;
    this.#openaiMinTokens = options.openaiMinTokens ?? 1024;
    this.#openaiStepTokens = options.openaiStepTokens ?? 128;
    this.#anthropicMinTokens = options.anthropicMinTokens ?? 1024;
    this.#lookback = options.anthropicLookbackPositions ?? 20;
    this.#maxMarkers = options.anthropicMaxMarkers ?? 4;
  }

  /** Rounds a token count down to the OpenAI cache granularity (0 below the minimum). */
  openaiGranule(tokens: number): number {
    if (tokens < this.#openaiMinTokens) return 0;
    const steps = Math.floor((tokens - this.#openaiMinTokens) / this.#openaiStepTokens);
    return this.#openaiMinTokens + steps * this.#openaiStepTokens;
  }

  /**
   * OpenAI mode: checkpoints at 1024 + 128·k; the longest stored one is the cached count; then
   * every checkpoint of this prompt is stored (or refreshed).
   */
  simulateOpenAI({
    namespace,
    segments,
    ttlMs,
    caching = true,
    reportsCacheWrites = false,
  }: {
    namespace: string;
    segments: readonly PrefixSegment[];
    /** Lifetime for this request's entries (e.g. 24 h for `prompt_cache_retention: "24h"`). */
    ttlMs?: number | undefined;
    /** False when the request turns caching off: nothing is read or stored. Default true. */
    caching?: boolean;
    /**
     * The model bills cache writes (GPT-5.6 and later, 1.25×): the tokens this request stored
     * beyond what it read are `cacheWriteTokens`. Default false (older models: writes are free
     * and not reported).
     */
    reportsCacheWrites?: boolean;
  }): PrefixCacheResult {
    const state = this.#namespace("openai", namespace);
    const now = this.#clock();
    const expiredEntries = this.#prune(state, now);
    const hashes = chainHashes(segments);
    const ends = cumulativeTokens(segments);
    const inputTokens = ends.at(-1) ?? 0;
    const keys: string[] = [];
    let segment = 0;
    for (let checkpoint = this.#openaiMinTokens; caching && checkpoint <= inputTokens;) {
      while ((ends[segment] ?? 0) < checkpoint) segment += 1;
      keys.push(`${hashes[segment]}@${checkpoint}`);
      checkpoint += this.#openaiStepTokens;
    }
    let cachedTokens = 0;
    for (let k = keys.length - 1; k >= 0; k -= 1) {
      if (state.entries.has(keys[k]!)) {
        cachedTokens = this.#openaiMinTokens + k * this.#openaiStepTokens;
        break;
      }
    }
    const expiresAt = now + (ttlMs ?? this.#ttlMs);
    for (const key of keys) state.entries.set(key, expiresAt);
    const granule = caching ? this.openaiGranule(inputTokens) : 0;
    const best =
      state.previous === undefined ? 0 : Math.min(state.previous.cacheableTokens, granule);
    const cacheWriteTokens = reportsCacheWrites ? Math.max(0, granule - cachedTokens) : 0;
    const result = this.#finish({
      state,
      segments,
      hashes,
      inputTokens,
      cachedTokens,
      cacheWriteTokens,
      cacheWriteTokens1h: 0,
      best,
      cacheableTokens: granule,
      markers: [],
      expiredEntries,
    });
    state.totals.cost +=
      result.uncachedTokens +
      openaiCachedPrice * cachedTokens +
      openaiCacheWritePrice * cacheWriteTokens;
    return result;
  }

  /**
   * Anthropic mode: more than 4 markers throws `CacheMarkerLimitError`. From each marker, looks
   * for a stored prefix at its position or up to 19 positions before it; the largest hit is
   * read. Each marker at or above the minimum is stored; the tokens up to the last marker that
   * were not read are written.
   */
  simulateAnthropic({
    namespace,
    segments,
  }: {
    namespace: string;
    segments: readonly PrefixSegment[];
  }): PrefixCacheResult {
    const markers = segments.flatMap((segment, index) => (segment.marker ? [index] : []));
    if (markers.length > this.#maxMarkers) {
      throw new CacheMarkerLimitError({
        message: `A maximum of ${this.#maxMarkers} blocks with cache_control may be provided. Found ${markers.length}.`,
        markers: markers.length,
        limit: this.#maxMarkers,
      });
    }
    const state = this.#namespace("anthropic", namespace);
    const now = this.#clock();
    const expiredEntries = this.#prune(state, now);
    const hashes = chainHashes(segments);
    const ends = cumulativeTokens(segments);
    const positions = blockPositions(segments);
    const inputTokens = ends.at(-1) ?? 0;

    let cachedTokens = 0;
    let readIndex = -1;
    for (let m = markers.length - 1; m >= 0; m -= 1) {
      const marker = markers[m]!;
      const oldest = positions[marker]! - (this.#lookback - 1);
      for (let j = marker; j >= 0 && positions[j]! >= oldest; j -= 1) {
        if (state.entries.has(hashes[j]!)) {
          if (ends[j]! > cachedTokens) {
            cachedTokens = ends[j]!;
            readIndex = j;
          }
          break;
        }
      }
    }

    let cacheWriteTokens = 0;
    let cacheWriteTokens1h = 0;
    let writtenUpTo = cachedTokens;
    for (const marker of markers) {
      const end = ends[marker]!;
      if (end < this.#anthropicMinTokens) continue;
      const ttlMs = segments[marker]!.marker?.ttlMs ?? this.#ttlMs;
      const current = state.entries.get(hashes[marker]!);
      state.entries.set(hashes[marker]!, Math.max(current ?? 0, now + ttlMs));
      if (end > writtenUpTo) {
        cacheWriteTokens += end - writtenUpTo;
        if (ttlMs >= oneHourMs) cacheWriteTokens1h += end - writtenUpTo;
        writtenUpTo = end;
      }
    }
    if (readIndex >= 0) {
      // A read refreshes the entry it came from, even when no marker sits on it any more.
      const current = state.entries.get(hashes[readIndex]!) ?? 0;
      state.entries.set(hashes[readIndex]!, Math.max(current, now + this.#ttlMs));
    }
    const lastWritten = [...markers].reverse().find((m) => ends[m]! >= this.#anthropicMinTokens);
    const cacheableTokens = lastWritten === undefined ? 0 : ends[lastWritten]!;
    const best =
      state.previous === undefined ? 0 : Math.min(state.previous.cacheableTokens, inputTokens);
    const result = this.#finish({
      state,
      segments,
      hashes,
      inputTokens,
      cachedTokens,
      cacheWriteTokens,
      cacheWriteTokens1h,
      best,
      cacheableTokens,
      markers,
      expiredEntries,
    });
    state.totals.cost +=
      result.uncachedTokens +
      anthropicReadPrice * cachedTokens +
      anthropicWrite5mPrice * (cacheWriteTokens - cacheWriteTokens1h) +
      anthropicWrite1hPrice * cacheWriteTokens1h;
    return result;
  }

  /** Session totals per namespace and over everything. */
  stats(): CacheStats {
    const sessions: SessionCacheStats[] = [];
    const sum = emptyTotals();
    for (const state of this.#namespaces.values()) {
      sessions.push({ mode: state.mode, namespace: state.name, ...toTotals(state.totals) });
      sum.requests += state.totals.requests;
      sum.inputTokens += state.totals.inputTokens;
      sum.cachedTokens += state.totals.cachedTokens;
      sum.cacheWriteTokens += state.totals.cacheWriteTokens;
      sum.bestPossibleCachedTokens += state.totals.bestPossibleCachedTokens;
      sum.cost += state.totals.cost;
    }
    return { total: toTotals(sum), sessions };
  }

  /** Forgets every entry, previous request and total. */
  reset(): void {
    this.#namespaces = new Map();
  }

  #namespace(mode: CacheMode, name: string): Namespace {
    const key = `${mode}\u0000${name}`;
    let state = this.#namespaces.get(key);
    if (state === undefined) {
      state = { mode, name, entries: new Map(), previous: undefined, totals: emptyTotals() };
      this.#namespaces.set(key, state);
    }
    return state;
  }

  #prune(state: Namespace, now: number): number {
    let expired = 0;
    for (const [key, expiresAt] of state.entries) {
      if (expiresAt <= now) {
        state.entries.delete(key);
        expired += 1;
      }
    }
    return expired;
  }

  #finish(input: {
    state: Namespace;
    segments: readonly PrefixSegment[];
    hashes: readonly string[];
    inputTokens: number;
    cachedTokens: number;
    cacheWriteTokens: number;
    cacheWriteTokens1h: number;
    best: number;
    cacheableTokens: number;
    markers: readonly number[];
    expiredEntries: number;
  }): PrefixCacheResult {
    const { state, segments, hashes } = input;
    const previous = state.previous;
    const labels = segments.map((segment) => segment.label);
    let shared = 0;
    if (previous !== undefined) {
      const limit = Math.min(previous.hashes.length, hashes.length);
      while (shared < limit && previous.hashes[shared] === hashes[shared]) shared += 1;
    }
    const pureAppend = previous === undefined || shared === previous.hashes.length;
    const divergence: PrefixDivergence | null =
      previous === undefined || pureAppend
        ? null
        : {
            segment: shared,
            label: labels[shared] ?? endOfRequest,
            previousLabel: previous.labels[shared] ?? endOfRequest,
          };
    state.previous = { hashes, labels, cacheableTokens: input.cacheableTokens };
    const totals = state.totals;
    totals.requests += 1;
    totals.inputTokens += input.inputTokens;
    totals.cachedTokens += input.cachedTokens;
    totals.cacheWriteTokens += input.cacheWriteTokens;
    totals.bestPossibleCachedTokens += input.best;
    return {
      mode: state.mode,
      namespace: state.name,
      inputTokens: input.inputTokens,
      cachedTokens: input.cachedTokens,
      cacheWriteTokens: input.cacheWriteTokens,
      cacheWriteTokens1h: input.cacheWriteTokens1h,
      uncachedTokens: input.inputTokens - input.cachedTokens - input.cacheWriteTokens,
      bestPossibleCachedTokens: input.best,
      segments: segments.length,
      previousSegments: previous === undefined ? null : previous.hashes.length,
      sharedSegments: shared,
      pureAppend,
      divergence,
      markers: input.markers,
      expiredEntries: input.expiredEntries,
    };
  }
}

/** `H[i] = sha256(H[i-1] ‖ bytes_i)`, starting from the empty string. */
function chainHashes(segments: readonly PrefixSegment[]): string[] {
  const hashes: string[] = [];
  let previous = "";
  for (const segment of segments) {
    previous = createHash("sha256").update(previous).update(segment.bytes).digest("hex");
    hashes.push(previous);
  }
  return hashes;
}

/** `ends[i]` = tokens of segments 0..i. */
function cumulativeTokens(segments: readonly PrefixSegment[]): number[] {
  const ends: number[] = [];
  let total = 0;
  for (const segment of segments) {
    total += segment.tokens;
    ends.push(total);
  }
  return ends;
}

/** Lookback positions: one per block, except that a run of tool_use (or tool_result) is one. */
function blockPositions(segments: readonly PrefixSegment[]): number[] {
  const positions: number[] = [];
  let position = -1;
  let previousType: string | undefined;
  for (const segment of segments) {
    const type = segment.blockType;
    const continuesRun = type !== undefined && runBlockTypes.has(type) && type === previousType;
    if (!continuesRun) position += 1;
    positions.push(position);
    previousType = type;
  }
  return positions;
}

function toTotals(totals: MutableTotals): CacheTotals {
  return {
    requests: totals.requests,
    inputTokens: totals.inputTokens,
    cachedTokens: totals.cachedTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
    bestPossibleCachedTokens: totals.bestPossibleCachedTokens,
    cachedRatio: totals.inputTokens === 0 ? 0 : totals.cachedTokens / totals.inputTokens,
    prefixEfficiency:
      totals.bestPossibleCachedTokens === 0
        ? 1
        : totals.cachedTokens / totals.bestPossibleCachedTokens,
    relativeInputCost: totals.inputTokens === 0 ? 1 : totals.cost / totals.inputTokens,
  };
}
