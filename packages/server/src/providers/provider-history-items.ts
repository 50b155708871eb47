/**
 * The list in a provider body that must grow append-only (docs/architecture.md invariant 1):
 * Responses `input`, Chat `messages`, Anthropic content blocks with cache markers removed.
 */
export function providerHistoryItems(body: unknown): unknown[] {
  if (typeof body !== "object" || body === null) return [];
  const record = body as Record<string, unknown>;
  if (Array.isArray(record.input)) return record.input;
  if (Array.isArray(record.messages) && "max_tokens" in record)
    return anthropicBlocks(record.messages);
  if (Array.isArray(record.messages)) return record.messages;
  return [];
}

function anthropicBlocks(messages: unknown[]): unknown[] {
  const blocks: unknown[] = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null) continue;
    const { role, content } = message as { role?: unknown; content?: unknown };
    const list =
      typeof content === "string"
        ? [{ type: "text", text: content }]
        : Array.isArray(content)
          ? content
          : [];
    for (const block of list) {
      if (typeof block !== "object" || block === null) {
        blocks.push({ role, block });
        continue;
      }
      const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
      blocks.push({ role, ...rest });
    }
  }
  return blocks;
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
