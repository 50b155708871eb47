type JsonRecord = Record<string, unknown>;

// Any object, arrays included (an odd block is then spread like any other).
const isObject = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null;

/**
 * Visits the list in a provider body that must grow append-only (docs/architecture.md
 * invariant 1): Responses `input`, Chat `messages`, Anthropic content blocks with cache markers
 * removed. `source` is the body object an item comes from (undefined where the item is made up),
 * `role` its Anthropic message's role, and `item()` builds the item itself, so a caller that
 * remembers work per source object can skip building it.
 */
export function forEachHistoryItem(
  body: unknown,
  visit: (source: unknown, role: unknown, item: () => unknown) => void,
): void {
  if (typeof body !== "object" || body === null) return;
  const record = body as JsonRecord;
  if (Array.isArray(record.input)) {
    for (const item of record.input) visit(item, undefined, () => item);
    return;
  }
  if (!Array.isArray(record.messages)) return;
  if (!("max_tokens" in record)) {
    for (const message of record.messages) visit(message, undefined, () => message);
    return;
  }
  for (const message of record.messages) {
    if (!isObject(message)) continue;
    const { role, content } = message;
    if (typeof content === "string") {
      visit(undefined, role, () => ({ role, type: "text", text: content }));
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      if (!isObject(block)) {
        visit(undefined, role, () => ({ role, block }));
        continue;
      }
      // A marked block is a fresh copy; its unmarked original is shared between bodies.
      visit(block, role, () => {
        const { cache_control: _marker, ...rest } = block;
        return { role, ...rest };
      });
    }
  }
}

/** The history items of a provider body, as `forEachHistoryItem` visits them. */
export function providerHistoryItems(body: unknown): unknown[] {
  const items: unknown[] = [];
  forEachHistoryItem(body, (_source, _role, item) => items.push(item()));
  return items;
}

/** How many leading history items two bodies share, compared by their JSON bytes. */
export function sharedPrefixItems(previous: unknown, current: unknown): number {
  const a = providerHistoryItems(previous);
  const b = providerHistoryItems(current);
  let shared = 0;
  while (
    shared < a.length &&
    shared < b.length &&
    JSON.stringify(a[shared]) === JSON.stringify(b[shared])
  ) {
    shared += 1;
  }
  return shared;
}
