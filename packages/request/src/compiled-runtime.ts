import type { ContentPart } from "@cursor/run";
import { canonicalJson, sha256Hex } from "@cursor/run";

/** A runtime message's content, ready for `createRuntimeMessage`. */
export interface CompiledRuntime {
  /** The rendered text first, then the user's images (if any) in the order they were sent. */
  readonly content: ContentPart[];
  /**
   * SHA-256 (hex) of the canonical JSON of the content, with the timestamp blanked for user
   * turns: a retry of the same turn at a later time has the same digest (and event identity).
   */
  readonly contentDigest: string;
}

export function contentDigest(content: readonly ContentPart[]): string {
  return sha256Hex(canonicalJson(content));
}

/** A text-only runtime message whose digest covers all of it. */
export function textRuntime(text: string): CompiledRuntime {
  const content: ContentPart[] = [{ type: "text", text }];
  return { content, contentDigest: contentDigest(content) };
}

/** Drops one final newline (the element's closing tag supplies the line break). */
export function withoutFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
