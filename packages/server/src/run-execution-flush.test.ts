// A front door that batches its output (the SSE stream corks a tick's events) must send the
// model's text before the run blocks on storing it: a short answer otherwise reaches the client
// only with the checkpoint, after every write of the run.
import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider } from "@cursor/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeProviderServiceOptions } from "./__fixtures__/fake-provider-service-options.js";
import { ConversationService } from "./conversation-service.js";
import { SqliteStore } from "./store/sqlite-store.js";

const key = "sk-flush-test-key-0123456789";
let fake: FakeProvider;

beforeAll(async () => {
  fake = await startFakeProvider({ cache: { clock: () => 1_800_000_000_000 } });
});
afterAll(() => fake.close());

describe("a run's sink flush", () => {
  it("is asked for after the streamed text and before the answer is stored", async () => {
    const order: string[] = [];
    const store = new SqliteStore({ path: ":memory:" });
    const append = store.appendMessages.bind(store);
    store.appendMessages = (input) => {
      order.push("store: append messages");
      return append(input);
    };
    const service = new ConversationService(
      fakeProviderServiceOptions({
        store,
        fake,
        apiKey: key,
        checkpointSecret: "flush-test-checkpoint-secret-0123456789",
      }),
    );
    try {
      fake.enqueue({ type: "text", text: "short answer", chunks: 2 });
      const prepared = await service.prepareRun({
        tenant: { id: "t-flush" },
        body: {
          conversationId: "c-flush",
          runId: "r1",
          mode: "agent",
          timestamp: "2026-11-29T10:00:00+01:00",
          action: { type: "user-message", message: { id: "m1", text: "hello" } },
        },
      });
      const outcome = await prepared.execute({
        event: (event) => order.push(`event: ${event.type}`),
        flush: () => order.push("flush"),
      });
      expect(outcome).toEqual({ reason: "completed" });
      const firstWrite = order.indexOf("store: append messages");
      const flushed = order.indexOf("flush");
      expect(order.slice(0, firstWrite)).toContain("event: text.delta");
      // Flushed after the last text and before the write.
      expect(flushed).toBeGreaterThan(order.lastIndexOf("event: text.delta"));
      expect(flushed).toBeLessThan(firstWrite);
    } finally {
      await service.shutdown();
      await store.close();
    }
  });
});
