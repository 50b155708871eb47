import { createHash } from "node:crypto";

/** Bytes of one link (a SHA-256 digest). */
const linkBytes = 32;

/** Link `previous` (hex) and `bytes` into the next link (hex): the chain's one definition. */
export const chainLink = (previous: string, bytes: string): string =>
  createHash("sha256").update(previous).update("\n").update(bytes).digest("hex");

/**
 * The links of one prompt, packed: `links[k]` covers the preamble and the first k history items,
 * 32 bytes each in one buffer. Read-only for its holders; a buffer a later chain extends in place
 * only ever gains bytes past this view's last link, so a view never changes under its holder.
 */
export class LinkView {
  readonly #buffer: Uint8Array;
  /** Links in this view (history items + 1). */
  readonly length: number;

  constructor(buffer: Uint8Array, length: number) {
    this.#buffer = buffer;
    this.length = length;
  }

  /** Link k, hex; undefined past the end. */
  at(k: number): string | undefined {
    if (!Number.isInteger(k) || k < 0 || k >= this.length) return undefined;
    return Buffer.from(
      this.#buffer.buffer,
      this.#buffer.byteOffset + k * linkBytes,
      linkBytes,
    ).toString("hex");
  }
}

/**
 * What the fingerprint remembers of the last prompt it linked after a conversation's first
 * frozen history item: that prompt's item sources (and Anthropic roles) and its links, packed.
 * A later prompt of the conversation shares the chain for as long as its items are the same
 * frozen objects (or hash to the same link), so only the items appended since are hashed. One
 * chain per conversation costs 32 bytes and a pointer or two per history item, where a link
 * remembered per item cost an object, a 64-character hex string and a WeakMap entry.
 */
export class LinkChain {
  #sources: unknown[] = [];
  #roles: unknown[] | undefined;
  #buffer: Uint8Array = new Uint8Array(0);
  /** Links written in `#buffer` that belong to this chain. */
  #length = 0;
  /** Links of `#buffer` some view may read: rewriting one of them must copy the buffer first. */
  #viewed = 0;

  /** Items the chain holds. */
  get items(): number {
    return this.#sources.length;
  }

  /**
   * Links `preamble` and the items to this chain, reusing every leading link the chain already
   * holds for the same frozen source (and role) or the same bytes, hashing only from the first
   * item that differs; the chain then describes this prompt. `item(i)` is called only for items
   * that are hashed.
   */
  link({
    preamble,
    sources,
    roles,
    item,
  }: {
    /** Link 0, hex. */
    preamble: string;
    sources: readonly unknown[];
    /** Per item (Anthropic), or undefined when items have no role. */
    roles: readonly unknown[] | undefined;
    /** The bytes of item `i` as the chain hashes them. */
    item: (index: number) => string;
  }): LinkView {
    let same = this.#length > 0 && this.#hex(0) === preamble;
    if (!same) this.#write(0, preamble);
    // The link before the current item, hex; undefined while it is the chain's (read when needed).
    let previous: string | undefined = preamble;
    for (let index = 0; index < sources.length; index += 1) {
      const source = sources[index];
      const role = roles?.[index];
      const held = same && index < this.#sources.length;
      if (
        held &&
        source === this.#sources[index] &&
        role === this.#roles?.[index] &&
        typeof source === "object" &&
        source !== null &&
        Object.isFrozen(source)
      ) {
        // The same frozen object after the same prefix: its link is the one held.
        previous = undefined;
        continue;
      }
      const next = chainLink(previous ?? this.#hex(index), item(index));
      // Another object with the same bytes (a fresh copy) keeps the chain going.
      if (!held || next !== this.#hex(index + 1)) {
        same = false;
        this.#write(index + 1, next);
      }
      this.#sources[index] = source;
      if (roles !== undefined) (this.#roles ??= [])[index] = role;
      previous = next;
    }
    this.#sources.length = sources.length;
    if (roles === undefined) this.#roles = undefined;
    else (this.#roles ??= []).length = sources.length;
    this.#length = sources.length + 1;
    this.#viewed = Math.max(this.#viewed, this.#length);
    return new LinkView(this.#buffer, this.#length);
  }

  #hex(k: number): string {
    return Buffer.from(
      this.#buffer.buffer,
      this.#buffer.byteOffset + k * linkBytes,
      linkBytes,
    ).toString("hex");
  }

  /** Writes link k (and forgets the links after it), copying a buffer a view holds first. */
  #write(k: number, hex: string): void {
    const needed = (k + 1) * linkBytes;
    if (needed > this.#buffer.byteLength || k < this.#viewed) {
      // Room to grow by half again: appends stay amortised O(1) without doubling the memory.
      const capacity = Math.max(
        needed,
        Math.ceil((this.#buffer.byteLength * 3) / 2 / linkBytes) * linkBytes,
        8 * linkBytes,
      );
      const grown = new Uint8Array(capacity);
      grown.set(this.#buffer.subarray(0, Math.min(k, this.#length) * linkBytes));
      this.#buffer = grown;
      this.#viewed = 0;
    }
    Buffer.from(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.byteLength).write(
      hex,
      k * linkBytes,
      linkBytes,
      "hex",
    );
    this.#length = k + 1;
  }
}
