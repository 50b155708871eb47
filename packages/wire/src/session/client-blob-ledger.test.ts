import { describe, expect, it } from "vitest";
import { MemoryClientBlobLedger } from "./client-blob-ledger.js";

describe("MemoryClientBlobLedger", () => {
  it("answers per conversation which blobs the client acknowledged", () => {
    const ledger = new MemoryClientBlobLedger();
    ledger.record({ conversationId: "a", blobIds: ["1", "2"] });
    ledger.record({ conversationId: "b", blobIds: ["3"] });
    expect([...ledger.acknowledged({ conversationId: "a", blobIds: ["1", "3", "4"] })]).toEqual([
      "1",
    ]);
    expect([...ledger.acknowledged({ conversationId: "c", blobIds: ["1"] })]).toEqual([]);
  });

  it("forgets the least recently used conversation beyond its bound", () => {
    const ledger = new MemoryClientBlobLedger({ maxConversations: 2 });
    ledger.record({ conversationId: "a", blobIds: ["1"] });
    ledger.record({ conversationId: "b", blobIds: ["1"] });
    ledger.acknowledged({ conversationId: "a", blobIds: [] });
    ledger.record({ conversationId: "c", blobIds: ["1"] });
    expect(ledger.acknowledged({ conversationId: "a", blobIds: ["1"] }).size).toBe(1);
    expect(ledger.acknowledged({ conversationId: "b", blobIds: ["1"] }).size).toBe(0);
  });
});
