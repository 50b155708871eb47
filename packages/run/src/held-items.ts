/**
 * How a per-message memo holds the frozen items it converted a message into, at the least heap
 * per entry: a memo entry lives as long as its conversation's head, one per message, so the list
 * around the items is what one more open conversation pays for each of its messages. The usual
 * single item is held as itself (no list: an array object and its backing store saved); several
 * are held in one frozen list of exactly their length (a list built by `push` keeps spare
 * capacity); every empty list is one shared frozen list. Items must not be arrays themselves.
 */
export type HeldItems<T extends object> = T | readonly T[];

const noItems: readonly never[] = Object.freeze([]);

/** The compact form of `items` (the items themselves are shared, not copied). */
export function holdItems<T extends object>(items: readonly T[]): HeldItems<T> {
  if (items.length === 0) return noItems;
  if (items.length === 1 && !Array.isArray(items[0])) return items[0]!;
  // `slice` allocates exactly `length` slots.
  return Object.freeze(items.slice());
}

/** Appends the held items to `target`, in order. */
export function pushHeldItems<T extends object>(target: T[], held: HeldItems<T>): void {
  if (!Array.isArray(held)) {
    target.push(held as T);
    return;
  }
  for (const item of held as readonly T[]) target.push(item);
}
