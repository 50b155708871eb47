import { describe, expect, it } from "vitest";
import { MemoryBlobStore } from "./blob-store.js";

describe("MemoryBlobStore", () => {
  it("stores, answers and counts content-addressed blobs", () => {
    const store = new MemoryBlobStore();
    expect(store.get("a")).toBeUndefined();
    expect(store.has("a")).toBe(false);
    store.putMany([
      { id: "a", bytes: Uint8Array.of(1, 2, 3) },
      { id: "b", bytes: Uint8Array.of(4) },
    ]);
    expect(store.has("a")).toBe(true);
    expect(store.get("a")).toEqual(Uint8Array.of(1, 2, 3));
    expect(store.size).toBe(2);
    expect(store.byteLength).toBe(4);
    expect(store.ids()).toEqual(["a", "b"]);
  });

  it("ignores ids it already holds, as the port requires", () => {
    const store = new MemoryBlobStore();
    store.putMany([{ id: "a", bytes: Uint8Array.of(1) }]);
    store.putMany([{ id: "a", bytes: Uint8Array.of(9, 9) }]);
    expect(store.get("a")).toEqual(Uint8Array.of(1));
    expect(store.byteLength).toBe(1);
  });

  it("copies on the way in and out", () => {
    const store = new MemoryBlobStore();
    const bytes = Uint8Array.of(1, 2);
    store.putMany([{ id: "a", bytes }]);
    bytes[0] = 7;
    const read = store.get("a")!;
    read[1] = 7;
    expect(store.get("a")).toEqual(Uint8Array.of(1, 2));
  });

  it("deletes (outside the port, for tests of missing blobs)", () => {
    const store = new MemoryBlobStore();
    store.putMany([{ id: "a", bytes: Uint8Array.of(1, 2) }]);
    expect(store.delete("a")).toBe(true);
    expect(store.delete("a")).toBe(false);
    expect(store.size).toBe(0);
    expect(store.byteLength).toBe(0);
  });
});
