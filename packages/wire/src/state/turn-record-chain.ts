import type { TurnRecord } from "@cursor/projection";
import { turnRecordSchema } from "@cursor/projection";
import { canonicalJson } from "@cursor/run";
import { z } from "zod";
import { sha256, toHex } from "../hex.js";
import type { ClientBlob } from "../session/kv-channel.js";
import { refusedStateError } from "./state-seal.js";

export const turnRecordBlobKind = "cursor-gateway.turn-record";

const linkSchema = z.strictObject({
  kind: z.literal(turnRecordBlobKind),
  v: z.literal(1),
  previous: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  record: turnRecordSchema,
});

/** One record's blob: the record and the id of the blob before it. */
function linkBlob(previous: string | null, record: TurnRecord): ClientBlob {
  const data = new TextEncoder().encode(
    canonicalJson({ kind: turnRecordBlobKind, v: 1, previous, record }),
  );
  return { id: toHex(sha256(data)), data };
}

interface CachedChain {
  readonly records: TurnRecord[];
  readonly ids: string[];
}

/**
 * The turn records of a conversation as a hash chain of small blobs, one per record, so each
 * turn adds one blob (O(new), not O(turns)) and the seal names the whole chain by its last id.
 * Chains are cached per conversation; a head whose records do not extend the cached ones is
 * rebuilt from scratch.
 */
export class TurnRecordChains {
  readonly #cache = new Map<string, CachedChain>();
  readonly #maxConversations: number;

  constructor({ maxConversations = 1_000 }: { maxConversations?: number } = {}) {
    this.#maxConversations = maxConversations;
  }

  /** The chain's blob ids, one per record, and the blobs of the records `fromIndex` on. */
  chain({ conversationId, records }: { conversationId: string; records: readonly TurnRecord[] }): {
    ids: readonly string[];
    blob(index: number): ClientBlob;
  } {
    let cached = this.#cache.get(conversationId);
    if (cached === undefined || !extends_(records, cached.records)) {
      cached = { records: [], ids: [] };
    }
    this.#cache.delete(conversationId);
    this.#cache.set(conversationId, cached);
    for (const [oldest] of this.#cache) {
      if (this.#cache.size <= this.#maxConversations) break;
      this.#cache.delete(oldest);
    }
    for (let index = cached.ids.length; index < records.length; index += 1) {
      const previous = cached.ids[index - 1] ?? null;
      cached.ids.push(linkBlob(previous, records[index]!).id);
      cached.records.push(records[index]!);
    }
    const ids = cached.ids.slice(0, records.length);
    return {
      ids,
      blob: (index) => linkBlob(ids[index - 1] ?? null, records[index]!),
    };
  }
}

function extends_(records: readonly TurnRecord[], cached: readonly TurnRecord[]): boolean {
  if (cached.length > records.length) return false;
  for (let index = 0; index < cached.length; index += 1) {
    const a = records[index]!;
    const b = cached[index]!;
    if (a !== b && canonicalJson(a) !== canonicalJson(b)) return false;
  }
  return true;
}

/**
 * Reads a chain back from its last id: `count` records, oldest first, each blob's SHA-256
 * checked (by `fetch`) and each link's shape validated.
 */
export async function readTurnRecordChain({
  head,
  count,
  fetch,
}: {
  head: string | null;
  count: number;
  fetch: (id: string) => Promise<Uint8Array>;
}): Promise<TurnRecord[]> {
  const records: TurnRecord[] = [];
  let next = head;
  while (next !== null) {
    if (records.length >= count) throw refusedStateError("its turn-record chain is too long");
    const data = await fetch(next);
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
    } catch (error) {
      throw refusedStateError(`turn-record blob ${next} is not JSON`, error);
    }
    const link = linkSchema.safeParse(json);
    if (!link.success) throw refusedStateError(`turn-record blob ${next} is malformed`);
    records.push(link.data.record);
    next = link.data.previous;
  }
  if (records.length !== count) throw refusedStateError("its turn-record chain is too short");
  return records.reverse();
}
