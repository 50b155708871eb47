const digestBytes = 32;
const minimumCapacity = 16;
const sha256HexPattern = /^[0-9a-f]{64}$/;

/**
 * The SHA-256 digests of a growing list (a history's messages), 32 bytes each in one buffer,
 * their lowercase hex produced only when asked. A history holds a digest per message for as long
 * as its conversation is open: as a 64-character string it costs some 88 bytes (the string and
 * its slot in an array), here 32 (plus at most half as much again of spare capacity). Digests are
 * only appended; a list that is replaced (a new epoch) gets a new table.
 */
export class DigestTable {
  #buffer = Buffer.alloc(minimumCapacity * digestBytes);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Bytes of the buffer (what the table holds beyond its object). */
  get bytes(): number {
    return this.#buffer.byteLength;
  }

  /**
   * Appends a digest given as 64 lowercase hex characters (what `sha256Hex` returns): any other
   * spelling would not come back byte-identical from `at`, so it is refused.
   */
  push(hex: string): void {
    if (!sha256HexPattern.test(hex)) {
      throw new TypeError(`not a lowercase hex SHA-256 digest: ${JSON.stringify(hex)}`);
    }
    if ((this.#length + 1) * digestBytes > this.#buffer.byteLength) this.#grow();
    this.#buffer.write(hex, this.#length * digestBytes, digestBytes, "hex");
    this.#length += 1;
  }

  /** The digest at `index` as lowercase hex, or undefined past the end. */
  at(index: number): string | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.#length) return undefined;
    const start = index * digestBytes;
    return this.#buffer.toString("hex", start, start + digestBytes);
  }

  /** The digests from `start` to `end` (exclusive, clamped to the table), as hex, in order. */
  slice(start = 0, end = this.#length): string[] {
    const from = Math.max(0, Math.min(start, this.#length));
    const to = Math.max(from, Math.min(end, this.#length));
    const out: string[] = [];
    for (let index = from; index < to; index += 1) out.push(this.at(index)!);
    return out;
  }

  #grow(): void {
    // Half as much again (not double): the spare capacity a long history carries stays small.
    const capacity = Math.max(minimumCapacity, Math.ceil((this.#length + 1) * 1.5));
    const grown = Buffer.alloc(capacity * digestBytes);
    this.#buffer.copy(grown, 0, 0, this.#length * digestBytes);
    this.#buffer = grown;
  }
}
