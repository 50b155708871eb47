/** A value or a promise of it: a store may answer synchronously (SQLite) or not. */
export type Awaitable<T> = T | Promise<T>;

export interface StoredBlob {
  /** SHA-256 hex of `bytes`. */
  readonly id: string;
  readonly bytes: Uint8Array;
}

/**
 * The port a checkpoint store implements. Every object is content-addressed and immutable, so
 * the port needs no update or delete: `putMany` must be atomic (all or none, e.g. one SQLite
 * transaction) and must ignore ids it already holds. Readers verify every hash, so a store need
 * not.
 */
export interface BlobStore {
  get(id: string): Awaitable<Uint8Array | undefined>;
  has(id: string): Awaitable<boolean>;
  putMany(blobs: readonly StoredBlob[]): Awaitable<void>;
}

/** In-memory `BlobStore` for tests, benchmarks and single-process use. */
export class MemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<string, Uint8Array>();
  #bytes = 0;

  get(id: string): Uint8Array | undefined {
    const bytes = this.#blobs.get(id);
    // A copy: a caller mutating what it read must not change what is stored.
    return bytes === undefined ? undefined : Uint8Array.from(bytes);
  }

  has(id: string): boolean {
    return this.#blobs.has(id);
  }

  putMany(blobs: readonly StoredBlob[]): void {
    for (const { id, bytes } of blobs) {
      if (this.#blobs.has(id)) continue;
      this.#blobs.set(id, Uint8Array.from(bytes));
      this.#bytes += bytes.byteLength;
    }
  }

  /** Removes an object; not part of the port (stores never delete during a write). */
  delete(id: string): boolean {
    const bytes = this.#blobs.get(id);
    if (bytes === undefined) return false;
    this.#blobs.delete(id);
    this.#bytes -= bytes.byteLength;
    return true;
  }

  /** Number of objects held. */
  get size(): number {
    return this.#blobs.size;
  }

  /** Total bytes held. */
  get byteLength(): number {
    return this.#bytes;
  }

  ids(): string[] {
    return [...this.#blobs.keys()];
  }
}
