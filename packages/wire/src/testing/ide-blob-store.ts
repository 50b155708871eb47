import { sha256, toHex } from "../hex.js";

/**
 * The IDE's side of the KV exchange: a content-addressed blob store. `set` refuses bytes whose
 * SHA-256 is not the id (a real client checks, and the test should see the server get it right).
 */
export class MemoryIdeBlobStore {
  readonly #blobs = new Map<string, Uint8Array>();

  set(id: string, data: Uint8Array): string | undefined {
    if (toHex(sha256(data)) !== id) return `blob ${id} does not match its SHA-256`;
    this.#blobs.set(id, data);
    return undefined;
  }

  get(id: string): Uint8Array | undefined {
    return this.#blobs.get(id);
  }

  has(id: string): boolean {
    return this.#blobs.has(id);
  }

  /** Replaces a stored blob's bytes without checking them (to forge states in tests). */
  overwrite(id: string, data: Uint8Array): void {
    this.#blobs.set(id, data);
  }

  delete(id: string): void {
    this.#blobs.delete(id);
  }

  get size(): number {
    return this.#blobs.size;
  }

  ids(): string[] {
    return [...this.#blobs.keys()];
  }
}
