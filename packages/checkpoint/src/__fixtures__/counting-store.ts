import { MemoryBlobStore } from "../blob-store.js";
import type { StoredBlob } from "../blob-store.js";

/** A memory store that counts port calls, to prove how much of a checkpoint a write reads. */
export class CountingBlobStore extends MemoryBlobStore {
  gets = 0;
  hasCalls = 0;
  putCalls = 0;

  override get(id: string): Uint8Array | undefined {
    this.gets += 1;
    return super.get(id);
  }
  override has(id: string): boolean {
    this.hasCalls += 1;
    return super.has(id);
  }
  override putMany(blobs: readonly StoredBlob[]): void {
    this.putCalls += 1;
    super.putMany(blobs);
  }
  resetCounts(): void {
    this.gets = 0;
    this.hasCalls = 0;
    this.putCalls = 0;
  }
  /** Replaces what is stored under `id` (a store gone bad). */
  corrupt(id: string, bytes: Uint8Array): void {
    this.delete(id);
    super.putMany([{ id, bytes }]);
  }
}
