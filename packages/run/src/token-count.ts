import { createRequire } from "node:module";
import type * as O200k from "gpt-tokenizer/encoding/o200k_base";
import type { ModelMessage } from "./model-request.js";

type CountTokens = (text: string) => number;
type O200kModule = typeof O200k;

let o200kCount: CountTokens | undefined;

// Special-token text such as `<|endoftext|>` is counted as the ordinary text it is: any user,
// tool or file content may quote it, and the tokenizer's default (throw on special tokens) would
// fail the whole run over a string.
const encodeOptions = { disallowedSpecial: new Set<string>() };

// gpt-tokenizer's o200k tables take ~0.5 s to load, so they are loaded on first use rather than
// by every importer of this package (provider packages never count tokens).
function loadO200k(): CountTokens {
  if (o200kCount === undefined) {
    const require = createRequire(import.meta.url);
    const tokenizer = require("gpt-tokenizer/encoding/o200k_base") as O200kModule;
    o200kCount = (text) => tokenizer.countTokens(text, encodeOptions);
  }
  return o200kCount;
}

/**
 * BPE merging is quadratic in the length of one pre-tokenised word, so a long run without spaces
 * (minified code, base64) can take seconds. Counting fixed-size chunks keeps it linear and is
 * within ~1% of the whole-text count.
 */
const chunkChars = 2_000;

/** A rough count (about four characters a token) when the tokenizer cannot count a piece. */
const fallbackCount = (text: string): number => Math.ceil(text.length / 4);

function countPiece(count: CountTokens, text: string): number {
  try {
    return count(text);
  } catch {
    // Counting is an estimate: no text may ever fail a run here.
    return fallbackCount(text);
  }
}

/**
 * o200k token count of a text (the GPT-4o/GPT-5 encoding; an estimate for other families).
 * Never throws: special-token sequences count as plain text, and a piece the tokenizer still
 * refuses falls back to a character estimate.
 */
export function countTextTokens(text: string): number {
  const count = loadO200k();
  if (text.length <= chunkChars) return countPiece(count, text);
  let total = 0;
  for (let start = 0; start < text.length; start += chunkChars) {
    total += countPiece(count, text.slice(start, start + chunkChars));
  }
  return total;
}

/** Per-message framing tokens (role markers) that every chat format adds. */
export const messageOverheadTokens = 4;
/** A flat estimate for an image; providers bill images by size, which the core does not know. */
export const imageTokenEstimate = 1_600;

/**
 * At most this many tokens in `text` by {@link countTextTokens}, without tokenising: o200k is a
 * byte-level BPE, so every token (special-token text is counted as plain text) covers at least
 * one UTF-8 byte, and one UTF-16 code unit is at most three UTF-8 bytes (a lone surrogate, also
 * one cut by a chunk boundary, becomes U+FFFD: three). The rough fallback count is lower still.
 */
export function o200kTokenUpperBound(text: string): number {
  return 3 * text.length;
}

/**
 * Estimated input tokens of one projected message. Opaque replay state is not counted. Not
 * memoised: `estimateRequestTokens` remembers the counts of a conversation's messages.
 */
export function countMessageTokens(
  message: ModelMessage,
  countTokens: CountTokens = countTextTokens,
): number {
  let total = messageOverheadTokens;
  switch (message.role) {
    case "user":
      for (const part of message.content) {
        total += part.type === "text" ? countTokens(part.text) : imageTokenEstimate;
      }
      break;
    case "assistant":
      total += countTokens(message.text) + countTokens(message.reasoning);
      for (const call of message.toolCalls) {
        total += messageOverheadTokens + countTokens(call.name) + countTokens(call.arguments);
      }
      break;
    case "tool":
      total += countTokens(message.content) + (message.image ? imageTokenEstimate : 0);
      break;
    default: {
      const exhaustive: never = message;
      throw new Error(`unknown model message ${JSON.stringify(exhaustive)}`);
    }
  }
  return total;
}
