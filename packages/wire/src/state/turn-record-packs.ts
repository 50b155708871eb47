import type { TurnRecord } from "@cursor/projection";
import { turnRecordSchema } from "@cursor/projection";
import { canonicalJson } from "@cursor/run";
import { z } from "zod";
import { sha256, toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import { refusedStateError } from "./state-seal.js";

export const turnRecordPackKind = "cursor-gateway.turn-records";
export const turnRecordPackVersion = 1;

/**
 * Records per full pack. Full packs never change, so a turn adds one small blob (its record)
 * and, every `packSize` turns, one pack holding the last `packSize` records: each record is sent
 * at most twice, whatever the conversation's length (O(new) per turn), and a conversation of
 * n turns lists about n / 32 + 32 record blobs.
 */
export const turnRecordPackSize = 32;

const packSchema = z.strictObject({
  kind: z.literal(turnRecordPackKind),
  v: z.literal(turnRecordPackVersion),
  /** Index of the pack's first record among all of the conversation's records. */
  first: z.number().int().min(0),
  records: z.array(turnRecordSchema).min(1).max(turnRecordPackSize),
});

/**
 * Where each record sits: full packs of `turnRecordPackSize` records, oldest first, then one
 * blob per remaining record. A pure function of the count, so every process lays out the same
 * records as the same blobs.
 */
export function turnRecordLayout(count: number): readonly { first: number; size: number }[] {
  const layout: { first: number; size: number }[] = [];
  const packed = count - (count % turnRecordPackSize);
  for (let first = 0; first < packed; first += turnRecordPackSize) {
    layout.push({ first, size: turnRecordPackSize });
  }
  for (let first = packed; first < count; first += 1) layout.push({ first, size: 1 });
  return layout;
}

function packBlob(records: readonly TurnRecord[], first: number): ClientBlob {
  const data = new TextEncoder().encode(
    canonicalJson({ kind: turnRecordPackKind, v: turnRecordPackVersion, first, records }),
  );
  return { id: toHex(sha256(data)), data };
}

/** What the seal signs of the record blobs: their ids, in order (the root entries after it). */
export function turnRecordsDigest(ids: readonly string[]): string {
  return toHex(sha256(new TextEncoder().encode(ids.join(","))));
}

interface CachedPacks {
  readonly records: TurnRecord[];
  /** Ids of the full packs, in order (they never change). */
  readonly packIds: string[];
  /** Ids of the single-record blobs by record index (kept until packed). */
  readonly singleIds: Map<number, string>;
}

/**
 * The turn records of conversations as content-addressed blobs (see `turnRecordLayout`). Ids are
 * cached per conversation, so a turn hashes only what it added; a head whose records do not
 * extend the cached ones is laid out from scratch.
 */
export class TurnRecordPacks {
  readonly #cache = new Map<string, CachedPacks>();
  readonly #maxConversations: number;

  constructor({ maxConversations = 1_000 }: { maxConversations?: number } = {}) {
    this.#maxConversations = maxConversations;
  }

  /** The record blobs of `records`, in layout order; `data` is built only when asked for. */
  blobs({
    conversationId,
    records,
  }: {
    conversationId: string;
    records: readonly TurnRecord[];
  }): readonly { readonly id: string; data(): Uint8Array }[] {
    let cached = this.#cache.get(conversationId);
    if (cached === undefined || !extendsRecords(records, cached.records)) {
      cached = { records: [], packIds: [], singleIds: new Map() };
    }
    this.#cache.delete(conversationId);
    this.#cache.set(conversationId, cached);
    for (const [oldest] of this.#cache) {
      if (this.#cache.size <= this.#maxConversations) break;
      this.#cache.delete(oldest);
    }
    cached.records.push(...records.slice(cached.records.length));
    return turnRecordLayout(records.length).map(({ first, size }) => {
      const slice = () => records.slice(first, first + size);
      if (size === turnRecordPackSize) {
        const index = first / turnRecordPackSize;
        const known = cached.packIds[index];
        const id = known ?? packBlob(slice(), first).id;
        if (known === undefined) {
          cached.packIds[index] = id;
          for (let at = first; at < first + size; at += 1) cached.singleIds.delete(at);
        }
        return { id, data: () => packBlob(slice(), first).data };
      }
      let id = cached.singleIds.get(first);
      if (id === undefined) {
        id = packBlob(slice(), first).id;
        cached.singleIds.set(first, id);
      }
      return { id, data: () => packBlob(slice(), first).data };
    });
  }
}

function extendsRecords(records: readonly TurnRecord[], cached: readonly TurnRecord[]): boolean {
  if (cached.length > records.length) return false;
  for (let index = 0; index < cached.length; index += 1) {
    const a = records[index]!;
    const b = cached[index]!;
    if (a !== b && canonicalJson(a) !== canonicalJson(b)) return false;
  }
  return true;
}

/**
 * Reads `count` records back from the record blobs the seal signed (fetched concurrently: one
 * round trip however many turns), each blob's SHA-256 checked by `fetch` and its shape and
 * position checked against the layout.
 */
export async function readTurnRecords({
  ids,
  count,
  fetch,
}: {
  ids: readonly string[];
  count: number;
  fetch: (id: string) => Promise<Uint8Array>;
}): Promise<TurnRecord[]> {
  const layout = turnRecordLayout(count);
  if (layout.length !== ids.length) {
    throw refusedStateError(
      `it lists ${ids.length} turn-record blobs, ${count} records need ${layout.length}`,
    );
  }
  const packs = await Promise.all(
    ids.map(async (id, index) => {
      const data = await fetch(id);
      let json: unknown;
      try {
        json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
      } catch (error) {
        throw refusedStateError(`turn-record blob ${id} is not JSON`, error);
      }
      const pack = packSchema.safeParse(json);
      const expected = layout[index]!;
      if (
        !pack.success ||
        pack.data.first !== expected.first ||
        pack.data.records.length !== expected.size
      ) {
        throw refusedStateError(`turn-record blob ${id} is malformed or out of place`);
      }
      return pack.data.records;
    }),
  );
  return packs.flat();
}
