import { createOpenAIResponsesAdapter } from "@cursor/provider-openai-responses";
import {
  HistoryLog,
  createAssistantMessage,
  createPromptSpec,
  createUserMessage,
  toModelRequest,
} from "@cursor/run";
import type { ModelRequest } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { CacheLedger } from "../cache/cache-ledger.js";
import { ProviderRequestLog } from "./provider-request-log.js";

const adapter = createOpenAIResponsesAdapter({ apiKey: "test-key" });
const promptSpec = createPromptSpec({ instructions: "You help.", tools: [] });

/** The requests of a conversation of `turns` turns: each extends the one before. */
function requests(turns: number): ModelRequest[] {
  const history = new HistoryLog();
  const out: ModelRequest[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    history.append(
      createUserMessage({ id: `u${turn}`, content: [{ type: "text", text: `question ${turn}` }] }),
    );
    out.push(
      toModelRequest({
        conversationId: "c",
        model: "gpt-5",
        promptSpec,
        messages: history.messages,
      }),
    );
    history.append(createAssistantMessage({ runId: `r${turn}`, step: 0, text: `answer ${turn}` }));
  }
  return out;
}

const at = new Date("2026-01-02T03:04:05.000Z");

describe("ProviderRequestLog", () => {
  it("gives back each body exactly as the adapter serialised it, oldest first", () => {
    const ledger = new CacheLedger({ maxBytes: 64 * 1024 * 1024 });
    const log = new ProviderRequestLog({ ledger });
    const sent = requests(3);
    sent.forEach((request, index) =>
      log.record({
        key: "t\u0000c",
        provider: adapter.id,
        request,
        adapter,
        at,
        callId: `k${index}`,
      }),
    );
    const page = log.list({ key: "t\u0000c", limit: 20 });
    expect(page.omitted).toBe(0);
    expect(page.requests.map((record) => record.body)).toEqual(
      sent.map((request) => adapter.serialize(request).body),
    );
    expect(page.requests.map((record) => record.sharedPrefixItems)).toEqual([0, 1, 3]);
    expect(page.requests[0]).toMatchObject({
      callId: "k0",
      at: at.toISOString(),
      provider: adapter.id,
    });
    expect(Object.keys(page.requests[0]!).sort()).toEqual([
      "at",
      "body",
      "callId",
      "provider",
      "sharedPrefixItems",
    ]);
    expect(log.body("t\u0000c", "k1")).toEqual(adapter.serialize(sent[1]!).body);
    expect(log.body("t\u0000c", "unknown")).toBeUndefined();
    // The shown records' first is still compared with the one before it.
    expect(log.list({ key: "t\u0000c", limit: 1 }).requests[0]!.sharedPrefixItems).toBe(3);
  });

  it("rebuilds the body of the messages sent, even if the request's list grew in place", () => {
    const log = new ProviderRequestLog({ ledger: new CacheLedger({ maxBytes: 1 << 24 }) });
    const [request] = requests(1);
    const messages = [...request!.messages];
    const growing = { ...request!, messages };
    const before = adapter.serialize(growing).body;
    log.record({ key: "c", provider: adapter.id, request: growing, adapter, at, callId: "x" });
    messages.push(...requests(2)[1]!.messages.slice(1));
    expect(log.body("c", "x")).toEqual(before);
  });

  it("keeps at most perConversation records, each an entry of its conversation's group", () => {
    const ledger = new CacheLedger({ maxBytes: 64 * 1024 * 1024 });
    const log = new ProviderRequestLog({ ledger, perConversation: 2 });
    for (const [index, request] of requests(4).entries()) {
      log.record({ key: "c", provider: adapter.id, request, adapter, at, callId: `k${index}` });
    }
    expect(log.list({ key: "c", limit: 20 }).requests.map((record) => record.callId)).toEqual([
      "k2",
      "k3",
    ]);
    expect(ledger.stats().kinds["provider-request"]).toMatchObject({ entries: 2, evictions: 0 });
    // The group's anchor (the conversation's head) takes its records along when evicted.
    ledger.set({ key: "head", kind: "head", group: "c", anchor: true, bytes: 10, evict: () => {} });
    ledger.set({ key: "other", kind: "head", bytes: ledger.maxBytes, evict: () => {} });
    expect(ledger.has("other")).toBe(true);
    expect(log.list({ key: "c", limit: 20 }).requests).toEqual([]);
    expect(log.body("c", "k3")).toBeUndefined();
    expect(ledger.stats().kinds["provider-request"]).toMatchObject({ entries: 0, evictions: 2 });
  });

  it("is held to the cache budget: the least recently used record leaves first", () => {
    const probe = new CacheLedger({ maxBytes: 1 << 24 });
    const [first, second, third] = requests(3);
    new ProviderRequestLog({ ledger: probe }).record({
      key: "a",
      provider: adapter.id,
      request: third!,
      adapter,
      at,
    });
    // Room for about two records.
    const ledger = new CacheLedger({ maxBytes: 2 * probe.heldBytes + 8 });
    const log = new ProviderRequestLog({ ledger });
    log.record({ key: "a", provider: adapter.id, request: first!, adapter, at, callId: "a1" });
    log.record({ key: "b", provider: adapter.id, request: second!, adapter, at, callId: "b1" });
    expect(log.body("a", "a1")).toBeDefined(); // used: "b1" is now the least recently used
    log.record({ key: "a", provider: adapter.id, request: third!, adapter, at, callId: "a2" });
    expect(log.body("b", "b1")).toBeUndefined();
    expect(log.list({ key: "a", limit: 20 }).requests.map((record) => record.callId)).toEqual([
      "a1",
      "a2",
    ]);
    // A budget of 0 keeps nothing.
    const none = new ProviderRequestLog({ ledger: new CacheLedger({ maxBytes: 0 }) });
    none.record({ key: "a", provider: adapter.id, request: first!, adapter, at, callId: "z" });
    expect(none.list({ key: "a", limit: 20 }).requests).toEqual([]);
  });

  it("caps the answer's body bytes, newest kept", () => {
    const log = new ProviderRequestLog({ ledger: new CacheLedger({ maxBytes: 1 << 24 }) });
    const sent = requests(3);
    sent.forEach((request, index) =>
      log.record({ key: "c", provider: adapter.id, request, adapter, at, callId: `k${index}` }),
    );
    const newest = Buffer.byteLength(JSON.stringify(adapter.serialize(sent[2]!).body));
    const page = log.list({ key: "c", limit: 20, maxBytes: newest + 1 });
    expect(page.requests.map((record) => record.callId)).toEqual(["k2"]);
    expect(page.omitted).toBe(2);
    expect(log.list({ key: "c", limit: 20, maxBytes: 1 }).requests).toHaveLength(1);
  });
});
