import { hash } from "node:crypto";
import stableStringify from "fast-json-stable-stringify";

/** JSON with object keys in canonical (sorted) order: equal values give byte-equal text. */
export function canonicalJson(value: unknown): string {
  return stableStringify(value);
}

export function sha256Hex(input: string | Uint8Array): string {
  // The one-shot form: no Hash object per call (half the time of one for a short input, and a
  // turn hashes a few dozen: each message, the head chain, the prompt's fingerprints).
  return hash("sha256", input, "hex");
}

/**
 * Returns a deep copy of a JSON value with object keys in canonical order, so that later
 * `JSON.stringify` of it (by any provider package) is byte-stable. Every key is kept as an own
 * property, `__proto__` included (JSON allows it as a property name, e.g. a tool argument's;
 * assigning it would set the copy's prototype instead and silently drop the property).
 */
export function canonicalizeJsonValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => canonicalizeJsonValue(item)) as T;
  if (value !== null && typeof value === "object") {
    const source = value as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort()) {
      if (source[key] === undefined) continue;
      Object.defineProperty(sorted, key, {
        value: canonicalizeJsonValue(source[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return sorted as T;
  }
  return value;
}

/** Freezes a value and everything reachable from it; returns the same value. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
