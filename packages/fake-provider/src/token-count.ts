import { createHash } from "node:crypto";
import { countTokens as countO200kTokens } from "gpt-tokenizer/encoding/o200k_base";

// Special-token text such as "<|endoftext|>" is counted as ordinary text: a prompt may quote it.
const encodeOptions = { disallowedSpecial: new Set<string>() };

// A conversation re-sends its whole history every turn; counting only what is new keeps the fake
// provider O(new content) per request. Keyed by content hash, cleared when it grows too large.
const maxCachedCounts = 100_000;
const counts = new Map<string, number>();

/** Number of o200k tokens in `text` (memoised by content). */
export function countTokens(text: string): number {
  if (text.length < 64) return countO200kTokens(text, encodeOptions);
  const key = createHash("sha256").update(text).digest("base64");
  const known = counts.get(key);
  if (known !== undefined) return known;
  const count = countO200kTokens(text, encodeOptions);
  if (counts.size >= maxCachedCounts) counts.clear();
  counts.set(key, count);
  return count;
}
