import { deepFreeze } from "@cursor/run";

/**
 * Values one of this package's schemas already produced, deep-frozen so that they cannot have
 * changed since: a compiler handed one back (the parsed request's context or user message, on
 * every turn) skips its second parse. Held weakly: a mark lives as long as its request.
 */
export class SchemaOutputMarks<T extends object> {
  readonly #marked = new WeakSet<object>();

  /** Marks `value`, a fresh output of the schema, as valid; deep-freezes it. */
  remember(value: T): void {
    this.#marked.add(deepFreeze(value));
  }

  has(value: unknown): value is T {
    return typeof value === "object" && value !== null && this.#marked.has(value);
  }
}
