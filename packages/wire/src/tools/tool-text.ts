/**
 * The fixed, model-visible size caps per tool (bytes of UTF-8 text). They are part of the
 * rendered history: changing one changes tool-result bytes, so they are constants, not settings.
 */
export const toolTextCaps = Object.freeze({
  read: 64 * 1024,
  list: 32 * 1024,
  glob: 32 * 1024,
  grep: 32 * 1024,
  shellStream: 64 * 1024,
  edit: 4 * 1024,
  lints: 32 * 1024,
  mcp: 32 * 1024,
  question: 16 * 1024,
});

/** Entry caps, applied before the byte caps. */
export const toolItemCaps = Object.freeze({
  listEntries: 500,
  globFiles: 200,
  grepMatches: 300,
  mcpItems: 20,
});

/** LF line endings: CRLF and lone CR become LF, so the same file renders the same everywhere. */
export function normalizeLf(text: string): string {
  return text.replace(/\r\n?/gu, "\n");
}

const encoder = new TextEncoder();

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes at a line end when there is one in the last
 * quarter (else at a code point boundary), followed by a visible note saying what was cut.
 */
export function capText(text: string, maxBytes: number, hint = ""): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let cut = maxBytes;
  // Back off to a UTF-8 boundary (continuation bytes are 10xxxxxx).
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut -= 1;
  let kept = new TextDecoder().decode(bytes.subarray(0, cut));
  const lineEnd = kept.lastIndexOf("\n");
  if (lineEnd >= Math.floor((kept.length * 3) / 4)) kept = kept.slice(0, lineEnd + 1);
  const shown = encoder.encode(kept).length;
  return `${kept}${kept.endsWith("\n") ? "" : "\n"}[truncated: showing ${shown} of ${bytes.length} bytes${
    hint === "" ? "" : `; ${hint}`
  }]`;
}

/** The first `max` items, and a note line for the rest (or none). */
export function capItems<T>(
  items: readonly T[],
  max: number,
  noun: string,
): { kept: readonly T[]; note: string | undefined } {
  if (items.length <= max) return { kept: items, note: undefined };
  return {
    kept: items.slice(0, max),
    note: `[truncated: showing ${max} of ${items.length} ${noun}]`,
  };
}
