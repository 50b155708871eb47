import { canonicalJson } from "./canonical-json.js";

/** How many validated messages' canonical JSON is kept, at most, and how much text in all. */
const maxEntries = 256;
const maxChars = 4 * 1024 * 1024;

// Validating a message computes its canonical JSON (to hash it); the store that writes the
// message's blob and the checkpoint encoder that packs it, a few milliseconds later in the same
// request, need that very text. Computing it is the costly part of both (sorted keys, escaped
// strings), so the text of the most recently validated messages is kept here for them, keyed by
// the (frozen) message. Bounded in entries and characters, oldest out first: it holds what a
// few requests are writing, never a conversation.
const recent = new Map<object, string>();
let heldChars = 0;

/** Keeps `json`, the canonical JSON of the frozen `message` just validated, for a moment. */
export function rememberCanonicalJson(message: object, json: string): void {
  if (json.length > maxChars || recent.has(message)) return;
  recent.set(message, json);
  heldChars += json.length;
  while (recent.size > maxEntries || heldChars > maxChars) {
    const oldest = recent.entries().next().value!;
    recent.delete(oldest[0]);
    heldChars -= oldest[1].length;
  }
}

/**
 * `canonicalJson(value)`, without computing it again when `value` is a message validated a
 * moment ago (a turn's new messages, as the store and the checkpoint write them).
 */
export function recentCanonicalJson(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    const known = recent.get(value);
    if (known !== undefined) return known;
  }
  return canonicalJson(value);
}
