import { createCheckpointState, encodeCheckpoint } from "@cursor/checkpoint";
import { createConversationHead } from "@cursor/projection";
import type { TurnRecord } from "@cursor/projection";
import { HistoryLog, createAssistantMessage, createRuntimeMessage } from "@cursor/run";
import { describe, expect, it } from "vitest";
import { ConversationHeadOwner, initialHeadState } from "../conversation-head-owner.js";
import { CacheLedger } from "./cache-ledger.js";
import { HeadCache } from "./head-cache.js";
import { jsonSize } from "./json-size.js";

const runtime = (n: number) =>
  createRuntimeMessage({
    eventId: `turn.m${n}.0`,
    runtimeKind: "user-turn",
    content: [{ type: "text", text: `question ${n} `.repeat(20) }],
  });
const answer = (n: number) =>
  createAssistantMessage({ runId: `r${n}`, step: 0, text: `answer ${n} `.repeat(20) });
const record = (n: number): TurnRecord => ({
  clientMessageId: `m${n}`,
  eventId: `turn.m${n}.0`,
  runId: `r${n}`,
  messageIds: [runtime(n).id],
});

function owner(turns: number) {
  const messages = Array.from({ length: turns }, (_, n) => [runtime(n), answer(n)]).flat();
  const history = new HistoryLog({ messages });
  const head = createConversationHead({
    conversationId: "c1",
    history,
    turns: Array.from({ length: turns }, (_, n) => record(n)),
  });
  return new ConversationHeadOwner(
    initialHeadState({
      tenant: "t",
      head,
      version: { epoch: 0, headDigest: history.headDigest, messageCount: history.length },
    }),
  );
}

/** Appends turn `n` the way the turn writer does (after the store took it). */
function append(heads: ConversationHeadOwner, n: number): void {
  const checked = heads.state.head.history.check([runtime(n), answer(n)]);
  heads.dispatch({
    type: "messages-appended",
    messages: checked.appended,
    next: { epoch: 0, headDigest: checked.headDigest, messageCount: checked.length },
    turns: [record(n)],
  });
}

function encode(heads: ConversationHeadOwner): string {
  const { head } = heads.state;
  return encodeCheckpoint({
    state: createCheckpointState({
      conversationId: "c1",
      history: head.history,
      turns: head.turns,
    }),
    secret: "head-cache-test-secret-0123456789abcdef",
    cache: heads.encodeCache,
  });
}

describe("HeadCache", () => {
  it("sizes a head by its history and turns, counting on each remember only what was appended", () => {
    const ledger = new CacheLedger({ maxBytes: 1 << 30 });
    const cache = new HeadCache({ ledger });
    const heads = owner(3);
    cache.remember("k", heads);
    const first = ledger.stats().kinds.head.bytes;
    const texts = heads.state.head.history.messages.reduce((sum, m) => sum + jsonSize(m), 0);
    expect(first).toBeGreaterThan(texts);
    append(heads, 3);
    cache.remember("k", heads);
    const grown = ledger.stats().kinds.head.bytes;
    // What turn 3 added, no more: the same owner is not counted again.
    const added = jsonSize(runtime(3)) + jsonSize(answer(3)) + jsonSize(record(3));
    expect(grown - first).toBeGreaterThan(added);
    expect(grown - first).toBeLessThan(added + 2_000);
    cache.remember("k", heads);
    expect(ledger.stats().kinds.head.bytes).toBe(grown);
    expect(cache.get("k")).toBe(heads);
  });

  it("accounts a head's checkpoint segments with it, and drops them with it", () => {
    const ledger = new CacheLedger({ maxBytes: 1 << 30 });
    const cache = new HeadCache({ ledger });
    const heads = owner(40); // 80 messages: two full segments
    encode(heads); // before the head is kept (a new conversation's first run)
    cache.remember("k", heads);
    const segments = ledger.stats().kinds.checkpoint;
    expect(segments.bytes).toBe(heads.encodeCache.stats.cachedBytes);
    expect(segments.bytes).toBeGreaterThan(0);
    // A head loaded again replaces the owner: the old owner's segments are not the new one's.
    const reloaded = owner(40);
    cache.remember("k", reloaded);
    expect(ledger.stats().kinds.checkpoint.entries).toBe(0);
    encode(reloaded);
    cache.checkpointEncoded("k", reloaded);
    // Another owner's encoding is not accounted.
    cache.checkpointEncoded("k", heads);
    expect(ledger.stats().kinds.checkpoint.bytes).toBe(reloaded.encodeCache.stats.cachedBytes);
    cache.forget("k");
    expect(ledger.stats()).toMatchObject({ heldBytes: 0, entries: 0 });
    expect(cache.get("k")).toBeUndefined();
  });

  it("an evicted head leaves the cache with its segments; a pinned one stays", () => {
    const ledger = new CacheLedger({ maxBytes: 0 });
    const cache = new HeadCache({ ledger });
    const heads = owner(40);
    cache.pin("k");
    cache.remember("k", heads);
    encode(heads);
    cache.checkpointEncoded("k", heads);
    expect(cache.get("k")).toBe(heads);
    expect(heads.encodeCache.stats.entries).toBeGreaterThan(0);
    cache.unpin("k");
    expect(cache.get("k")).toBeUndefined();
    expect(heads.encodeCache.stats.entries).toBe(0);
    expect(ledger.stats().kinds).toMatchObject({
      head: { entries: 0, evictions: 1 },
      checkpoint: { entries: 0, evictions: 1 },
    });
  });
});
