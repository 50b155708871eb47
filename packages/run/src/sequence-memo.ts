/** What a memo holds for one sequence: its elements and their values, index by index. */
interface Chain<K, V> {
  /** The element a value was computed for (undefined: none held at that index). */
  readonly keys: (K | undefined)[];
  readonly values: (V | undefined)[];
  /** Its place in the memo's use order (the chain's anchor, weakly). */
  readonly ref: WeakRef<K & object>;
}

/** Sequences a memo holds chains for, at most, by default: the most recently mapped. */
const defaultMaxSequences = 64;

const isFrozenObject = (value: unknown): value is object =>
  typeof value === "object" && value !== null && Object.isFrozen(value);

/**
 * A memo of a value computed per element of a sequence that grows at its end (a conversation's
 * messages, call after call), held per sequence instead of per element: one chain per sequence,
 * found by its first frozen element, holds each element and its value at their index. A call
 * computes only the values of elements not held at their index (those the sequence appended
 * since the previous call), like a memo keyed per element, but an open conversation pays two
 * pointers per message for it instead of a WeakMap entry each (which costs two to four times
 * that, its table being kept at most half full, and doubles in one step).
 *
 * A value may depend on its element and its index only; only frozen elements are held (a value
 * is never handed back for an object that could have changed). Where a call's sequence differs
 * from the chain, the chain becomes that sequence (nothing of the old one past its length
 * stays); a shorter sequence that agrees with the chain (a prefix) leaves it as it is. A chain
 * lives as long as its first frozen element, and only while its sequence is one of the
 * `maxSequences` mapped most recently: a gateway holding many idle conversations keeps the values
 * of the conversations it is serving, not of every one (a sequence mapped again after that
 * computes its values again, once). The order of use holds sequences weakly.
 */
export class SequenceMemo<K extends object, V> {
  readonly #chains = new WeakMap<K, Chain<K, V>>();
  /** Chains in order of use, oldest first (a `Set` keeps insertion order). */
  readonly #used = new Set<WeakRef<K>>();
  readonly #maxSequences: number;

  constructor({ maxSequences = defaultMaxSequences }: { maxSequences?: number } = {}) {
    this.#maxSequences = Math.max(1, maxSequences);
  }

  /** The value held for `sequence[index]`, if any (what an open conversation pays for). */
  held(sequence: readonly K[], index: number): V | undefined {
    const anchor = sequence.find(isFrozenObject);
    const chain = anchor === undefined ? undefined : this.#chains.get(anchor);
    return chain !== undefined && chain.keys[index] === sequence[index]
      ? chain.values[index]
      : undefined;
  }

  /** The value of every element, in order; `compute` runs for the elements not held. */
  map(sequence: readonly K[], compute: (element: K, index: number) => V): V[] {
    const values: V[] = [];
    const anchor = sequence.find(isFrozenObject);
    if (anchor === undefined) {
      sequence.forEach((element, index) => values.push(compute(element, index)));
      return values;
    }
    let chain = this.#chains.get(anchor);
    if (chain === undefined) {
      chain = { keys: [], values: [], ref: new WeakRef(anchor) };
      this.#chains.set(anchor, chain);
    } else {
      this.#used.delete(chain.ref);
    }
    this.#used.add(chain.ref);
    while (this.#used.size > this.#maxSequences) {
      const oldest = this.#used.values().next().value!;
      this.#used.delete(oldest);
      const gone = oldest.deref();
      if (gone !== undefined) this.#chains.delete(gone);
    }
    const { keys, values: held } = chain;
    let changed = false;
    for (let index = 0; index < sequence.length; index += 1) {
      const element = sequence[index]!;
      if (keys[index] === element && index < held.length) {
        values.push(held[index] as V);
        continue;
      }
      const value = compute(element, index);
      values.push(value);
      changed = true;
      const frozen = Object.isFrozen(element);
      // Indexes are written in order, so the arrays stay packed.
      if (index < keys.length) {
        keys[index] = frozen ? element : undefined;
        held[index] = frozen ? value : undefined;
      } else {
        keys.push(frozen ? element : undefined);
        held.push(frozen ? value : undefined);
      }
    }
    if (changed && keys.length > sequence.length) {
      keys.length = sequence.length;
      held.length = sequence.length;
    }
    return values;
  }
}
