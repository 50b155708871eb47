import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CacheLedger } from "./cache-ledger.js";
import type { CacheEntry, CacheKind } from "./cache-ledger.js";

/** A ledger whose evict callbacks record the order of evictions. */
function ledgerOf(maxBytes: number) {
  const evicted: string[] = [];
  const told: string[] = [];
  const ledger = new CacheLedger({ maxBytes, onEvict: (entry) => told.push(entry.key) });
  const set = (
    key: string,
    bytes: number,
    more: Partial<Omit<CacheEntry, "key" | "bytes" | "evict">> = {},
  ) => ledger.set({ key, bytes, kind: "head", ...more, evict: () => evicted.push(key) });
  return { ledger, evicted, told, set };
}

describe("CacheLedger", () => {
  it("evicts least recently used first until the entries fit the budget", () => {
    const { ledger, evicted, told, set } = ledgerOf(100);
    set("a", 40);
    set("b", 40);
    set("c", 20);
    expect(ledger.heldBytes).toBe(100);
    set("d", 30);
    expect(evicted).toEqual(["a"]);
    expect(told).toEqual(["a"]);
    expect(ledger.heldBytes).toBe(90);
    expect(["a", "b", "c", "d"].map((key) => ledger.has(key))).toEqual([false, true, true, true]);
  });

  it("touch and set move an entry to the most recently used end", () => {
    const { ledger, evicted, set } = ledgerOf(100);
    set("a", 40);
    set("b", 40);
    expect(ledger.touch("a")).toBe(true);
    set("c", 40);
    expect(evicted).toEqual(["b"]);
    set("a", 40); // re-set: most recent again
    set("d", 40);
    expect(evicted).toEqual(["b", "c"]);
    expect(ledger.touch("missing")).toBe(false);
  });

  it("resize keeps the recency order and evicts when the entry grew past the budget", () => {
    const { ledger, evicted, set } = ledgerOf(100);
    set("a", 10);
    set("b", 10);
    expect(ledger.resize("a", 50)).toBe(true);
    expect(ledger.bytesOf("a")).toBe(50);
    expect(ledger.heldBytes).toBe(60);
    expect(ledger.resize("b", 60)).toBe(true);
    // "a" is still the least recently used: it goes, "b" fits alone.
    expect(evicted).toEqual(["a"]);
    expect(ledger.heldBytes).toBe(60);
    expect(ledger.resize("gone", 1)).toBe(false);
  });

  it("never evicts a pinned group, and enforces the budget again when it is unpinned", () => {
    const { ledger, evicted, set } = ledgerOf(100);
    set("run-head", 80, { group: "c1", anchor: true });
    ledger.pin("c1");
    set("other", 50);
    // The pinned head is older, but only the unpinned entry can go.
    expect(evicted).toEqual(["other"]);
    set("run-head", 150, { group: "c1", anchor: true }); // over the whole budget, but pinned
    expect(ledger.has("run-head")).toBe(true);
    expect(ledger.heldBytes).toBe(150);
    ledger.pin("c1"); // pins count
    ledger.unpin("c1");
    expect(ledger.has("run-head")).toBe(true);
    ledger.unpin("c1");
    expect(evicted).toEqual(["other", "run-head"]);
    expect(ledger.heldBytes).toBe(0);
    expect(() => ledger.unpin("c1")).toThrow(/not pinned/);
  });

  it("evicting an anchor takes its group along; a member alone leaves the anchor", () => {
    const { ledger, evicted, set } = ledgerOf(1_000);
    set("head:c1", 100, { group: "c1", anchor: true });
    set("checkpoint:c1", 50, { group: "c1", kind: "checkpoint" });
    set("request:1", 30, { group: "c1", kind: "provider-request" });
    set("head:c2", 100, { group: "c2", anchor: true });
    set("spec", 10, { kind: "prompt-spec" });
    // Budget pressure: the c1 head is the least recently used, so c1 goes whole.
    set("head:c3", 800, { group: "c3", anchor: true });
    expect(evicted).toEqual(["head:c1", "checkpoint:c1", "request:1"]);
    const stats = ledger.stats();
    expect(stats.kinds.head).toEqual({ bytes: 900, entries: 2, evictions: 1 });
    expect(stats.kinds.checkpoint).toEqual({ bytes: 0, entries: 0, evictions: 1 });
    expect(stats.kinds["provider-request"]).toEqual({ bytes: 0, entries: 0, evictions: 1 });
    expect(stats.kinds["prompt-spec"]).toEqual({ bytes: 10, entries: 1, evictions: 0 });
    // A member evicted alone: its anchor stays.
    set("checkpoint:c2", 85, { group: "c2", kind: "checkpoint" });
    expect(ledger.heldBytes).toBe(995);
    ledger.touch("head:c2");
    ledger.touch("head:c3");
    ledger.touch("spec");
    set("request:2", 10, { group: "c2", kind: "provider-request" });
    expect(evicted.slice(3)).toEqual(["checkpoint:c2"]);
    expect(ledger.has("head:c2")).toBe(true);
  });

  it("evicts across kinds in recency order, whatever the kind", () => {
    const { ledger, evicted, set } = ledgerOf(30);
    const kinds: CacheKind[] = ["prompt-spec", "provider-request", "checkpoint", "head"];
    kinds.forEach((kind, index) => set(`e${index}`, 10, { kind }));
    expect(evicted).toEqual(["e0"]);
    set("e4", 20, { kind: "prompt-spec" });
    expect(evicted).toEqual(["e0", "e1", "e2"]);
    expect(ledger.stats().kinds).toMatchObject({
      head: { entries: 1, evictions: 0 },
      "prompt-spec": { entries: 1, evictions: 1 },
      checkpoint: { entries: 0, evictions: 1 },
    });
  });

  it("with a budget of 0 keeps nothing unpinned, and pinned entries until unpinned", () => {
    const { ledger, evicted, set } = ledgerOf(0);
    set("a", 1);
    set("empty", 0); // a zero-byte entry fits any budget
    expect(evicted).toEqual(["a"]);
    expect(ledger.has("empty")).toBe(true);
    ledger.pin("g");
    set("pinned", 5, { group: "g", anchor: true });
    expect(ledger.has("pinned")).toBe(true);
    ledger.unpin("g");
    expect(evicted).toEqual(["a", "pinned"]);
    expect(ledger.heldBytes).toBe(0);
  });

  it("does not flush everything else for an entry larger than the whole budget", () => {
    const { ledger, evicted, set } = ledgerOf(100);
    set("a", 30);
    set("b", 30);
    set("huge", 101);
    expect(evicted).toEqual(["huge"]);
    expect(ledger.heldBytes).toBe(60);
  });

  it("delete forgets an entry without its evict callback", () => {
    const { ledger, evicted, set } = ledgerOf(100);
    set("a", 40, { group: "g", anchor: true });
    set("b", 40, { group: "g" });
    expect(ledger.delete("a")).toBe(true);
    expect(ledger.delete("a")).toBe(false);
    expect(evicted).toEqual([]);
    expect(ledger.heldBytes).toBe(40);
    // The group lost its anchor: its member is evicted alone under pressure.
    set("c", 70);
    expect(evicted).toEqual(["b"]);
  });

  it("refuses a bad budget or size and changes nothing", () => {
    expect(() => new CacheLedger({ maxBytes: -1 })).toThrow(RangeError);
    expect(() => new CacheLedger({ maxBytes: 1.5 })).toThrow(RangeError);
    const { ledger, set } = ledgerOf(100);
    set("a", 10);
    expect(() => set("a", Number.NaN)).toThrow(/bytes must be finite/);
    expect(() => set("b", -1)).toThrow(RangeError);
    expect(() => ledger.resize("a", Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(ledger.bytesOf("a")).toBe(10);
    expect(ledger.heldBytes).toBe(10);
  });

  it("holds the budget after any sequence of operations (unpinned bytes ≤ budget)", () => {
    const operation = fc.oneof(
      fc.record({
        op: fc.constant("set" as const),
        key: fc.integer({ min: 0, max: 7 }),
        bytes: fc.integer({ min: 0, max: 60 }),
        group: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        anchor: fc.boolean(),
      }),
      fc.record({ op: fc.constant("touch" as const), key: fc.integer({ min: 0, max: 7 }) }),
      fc.record({
        op: fc.constant("resize" as const),
        key: fc.integer({ min: 0, max: 7 }),
        bytes: fc.integer({ min: 0, max: 60 }),
      }),
      fc.record({ op: fc.constant("delete" as const), key: fc.integer({ min: 0, max: 7 }) }),
      fc.record({ op: fc.constant("pin" as const), group: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ op: fc.constant("unpin" as const), group: fc.integer({ min: 0, max: 2 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 }), fc.array(operation), (maxBytes, ops) => {
        const ledger = new CacheLedger({ maxBytes });
        const live = new Map<string, { bytes: number; group: string | undefined }>();
        const pins = new Map<string, number>();
        for (const step of ops) {
          switch (step.op) {
            case "set": {
              const key = `k${step.key}`;
              const group = step.group === undefined ? undefined : `g${step.group}`;
              live.set(key, { bytes: step.bytes, group });
              ledger.set({
                key,
                kind: "head",
                bytes: step.bytes,
                ...(group === undefined ? {} : { group, anchor: step.anchor }),
                evict: () => live.delete(key),
              });
              break;
            }
            case "touch":
              ledger.touch(`k${step.key}`);
              break;
            case "resize": {
              const key = `k${step.key}`;
              if (ledger.resize(key, step.bytes)) {
                const entry = live.get(key);
                if (entry !== undefined) entry.bytes = step.bytes;
              }
              break;
            }
            case "delete":
              if (ledger.delete(`k${step.key}`)) live.delete(`k${step.key}`);
              break;
            case "pin":
              ledger.pin(`g${step.group}`);
              pins.set(`g${step.group}`, (pins.get(`g${step.group}`) ?? 0) + 1);
              break;
            case "unpin": {
              const count = pins.get(`g${step.group}`) ?? 0;
              if (count === 0) continue;
              pins.set(`g${step.group}`, count - 1);
              ledger.unpin(`g${step.group}`);
              break;
            }
          }
          // What the ledger holds is exactly what its entries' owners still hold.
          const held = [...live.values()].reduce((sum, entry) => sum + entry.bytes, 0);
          expect(ledger.heldBytes).toBe(held);
          const unpinned = [...live.values()]
            .filter((entry) => entry.group === undefined || (pins.get(entry.group) ?? 0) === 0)
            .reduce((sum, entry) => sum + entry.bytes, 0);
          // The budget holds, or everything unpinned is gone (pinned entries alone exceed it).
          expect(ledger.heldBytes <= maxBytes || unpinned === 0).toBe(true);
          for (const key of live.keys()) expect(ledger.has(key)).toBe(true);
        }
      }),
    );
  });
});
