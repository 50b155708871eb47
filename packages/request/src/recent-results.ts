import { jsonEqual } from "./json-equal.js";

/**
 * The last few results of a pure function of a JSON-shaped, frozen input, found again by
 * structural equality: a conversation sends the same request context turn after turn, and
 * comparing it with the last one costs a fraction of compiling it again. Bounded by count,
 * most recently used first; a miss compares with every entry, so the capacity stays small.
 */
export class RecentResults<I, O> {
  readonly #capacity: number;
  readonly #entries: { readonly input: I; readonly output: O }[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
    this.#capacity = capacity;
  }

  /** The result stored for an input equal to `input`, if any (and it becomes the most recent). */
  get(input: I): O | undefined {
    const entries = this.#entries;
    for (let index = 0; index < entries.length; index += 1) {
      const entry = entries[index]!;
      if (!jsonEqual(entry.input, input)) continue;
      if (index > 0) {
        entries.splice(index, 1);
        entries.unshift(entry);
      }
      return entry.output;
    }
    return undefined;
  }

  /** Stores `output` for `input` (which must not change afterwards: pass a frozen value). */
  set(input: I, output: O): void {
    this.#entries.unshift({ input, output });
    if (this.#entries.length > this.#capacity) this.#entries.pop();
  }

  get size(): number {
    return this.#entries.length;
  }
}
