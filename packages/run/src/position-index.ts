import { randomInt } from "node:crypto";

const empty = -1;
const minimumSlots = 16;

// Seeded per process: ids partly come from clients, and a fixed hash would let one choose ids
// that all land in one probe run (each look-up then O(n)).
const seed = randomInt(0x7fffffff);

/** FNV-1a over the key's UTF-16 code units, from the process seed. */
function hashOf(key: string): number {
  let hash = seed ^ 0x811c9dc5;
  for (let at = 0; at < key.length; at += 1) {
    hash = Math.imul(hash ^ key.charCodeAt(at), 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The positions of a growing list's elements by a string key each of them holds (a message's
 * id, its event id): what a `Map<string, number>` does, at a fraction of its heap. A history
 * keeps one such index per key for as long as its conversation is open, an entry per message;
 * a Map entry costs some 40–55 bytes (key, value and chain pointers, a bucket, a table kept at
 * most half full), this one 8–16 (one 4-byte position per slot, at most half of the slots used):
 * the key is not stored, `keyAt(position)` reads it from the element itself. Keys are never
 * removed (a list that is replaced gets a new index); a key is added once.
 */
export class PositionIndex {
  readonly #keyAt: (position: number) => string | undefined;
  #slots = new Int32Array(minimumSlots).fill(empty);
  #size = 0;

  constructor(keyAt: (position: number) => string | undefined) {
    this.#keyAt = keyAt;
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes of the slot table (what the index holds beyond its object). */
  get bytes(): number {
    return this.#slots.byteLength;
  }

  get(key: string): number | undefined {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let slot = hashOf(key) & mask; ; slot = (slot + 1) & mask) {
      const position = slots[slot]!;
      if (position === empty) return undefined;
      if (this.#keyAt(position) === key) return position;
    }
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** Indexes the element at `position` under `key` (its key: `keyAt(position)` must return it). */
  add(key: string, position: number): void {
    if (2 * (this.#size + 1) > this.#slots.length) this.#grow();
    this.#place(this.#slots, key, position);
    this.#size += 1;
  }

  #place(slots: Int32Array, key: string, position: number): void {
    const mask = slots.length - 1;
    let slot = hashOf(key) & mask;
    while (slots[slot] !== empty) slot = (slot + 1) & mask;
    slots[slot] = position;
  }

  #grow(): void {
    const grown = new Int32Array(2 * this.#slots.length).fill(empty);
    for (const position of this.#slots) {
      if (position !== empty) this.#place(grown, this.#keyAt(position)!, position);
    }
    this.#slots = grown;
  }
}
