/**
 * The content ids of the last `capacity` objects asked for, least recently used leaving first.
 * Bounded, unlike a memo entry per object: turn records are hashed when the segment that holds
 * them is encoded, and only a conversation's open (last) segment is encoded again turn after
 * turn, so the ids worth keeping are the recent ones, not one per turn of every open
 * conversation for as long as it is open.
 */
export class RecentIds {
  readonly #capacity: number;
  readonly #ids = new Map<object, string>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(value: object): string | undefined {
    const id = this.#ids.get(value);
    if (id !== undefined) {
      // Map order is the eviction order: a hit moves to the end.
      this.#ids.delete(value);
      this.#ids.set(value, id);
    }
    return id;
  }

  has(value: object): boolean {
    return this.#ids.has(value);
  }

  set(value: object, id: string): void {
    this.#ids.delete(value);
    this.#ids.set(value, id);
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.keys().next();
      if (oldest.done !== true) this.#ids.delete(oldest.value);
    }
  }
}
