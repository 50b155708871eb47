/**
 * Orders strings by UTF-16 code units. Unlike `localeCompare`, the result does not depend on the
 * ICU version or locale of the process, so every gateway instance sorts the same way.
 */
function compareCodeUnits(left: string, right: string): number {
  if (left < right) return -1;
  return left > right ? 1 : 0;
}

/** Compares by each key in turn (a total order when the keys cover every field). */
function compareByKeys(left: readonly string[], right: readonly string[]): number {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index += 1) {
    const order = compareCodeUnits(left[index] ?? "", right[index] ?? "");
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

/** A sorted copy of `items`, by the key tuple of each; the input is left as it was. */
export function sortByKeys<T>(items: readonly T[], keys: (item: T) => readonly string[]): T[] {
  return items
    .map((item) => ({ item, key: keys(item) }))
    .sort((left, right) => compareByKeys(left.key, right.key))
    .map(({ item }) => item);
}
