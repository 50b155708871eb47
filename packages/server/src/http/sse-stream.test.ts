import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSseEvents } from "../client/gateway-client.js";
import { SseStream } from "./sse-stream.js";

// A response that, like Node's, holds writes while corked and sends them as one chunk.
function response() {
  const chunks: string[] = [];
  const listeners: (() => void)[] = [];
  let corked = 0;
  let held: string[] = [];
  const flush = () => {
    if (held.length > 0) chunks.push(held.join(""));
    held = [];
  };
  const fake = {
    destroyed: false,
    writable: true,
    writeHead: () => fake,
    flushHeaders: () => undefined,
    cork: () => {
      corked += 1;
    },
    uncork: () => {
      if (corked === 0) return;
      corked -= 1;
      if (corked === 0) flush();
    },
    write: (chunk: string) => {
      if (corked > 0) held.push(chunk);
      else chunks.push(chunk);
      return true;
    },
    end: () => {
      corked = 0;
      flush();
      fake.writable = false;
      for (const listener of listeners) listener();
    },
    once: (_event: string, listener: () => void) => listeners.push(listener),
  };
  return { raw: fake as unknown as ServerResponse, chunks };
}

afterEach(() => vi.useRealTimers());

describe("SseStream heartbeats", () => {
  it("sends a comment only when nothing else went out for a heartbeat interval, and stops at the end", async () => {
    // Intervals are faked; the end-of-I/O flush (setImmediate) stays real.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout"] });
    const { raw, chunks } = response();
    const stream = new SseStream(raw, { heartbeatMs: 1_000 });
    vi.advanceTimersByTime(1_000);
    expect(chunks).toEqual([": keep-alive\n\n"]);
    stream.send("text.delta", { text: "a" });
    // Writes leave when the I/O being handled is done.
    await new Promise((resolve) => setImmediate(resolve));
    vi.advanceTimersByTime(1_000);
    // An event went out in that interval: no comment.
    expect(chunks).toHaveLength(2);
    vi.advanceTimersByTime(1_000);
    expect(chunks.at(-1)).toBe(": keep-alive\n\n");
    stream.end();
    vi.advanceTimersByTime(5_000);
    expect(chunks).toHaveLength(3);
    // Clients see the events only: comments are not events.
    expect(parseSseEvents(chunks.join(""))).toEqual([{ event: "text.delta", data: { text: "a" } }]);
  });
});

describe("SseStream writes", () => {
  it("sends the events of one turn of the event loop in one write, in order, and each later turn's on its own", async () => {
    const { raw, chunks } = response();
    const stream = new SseStream(raw);
    stream.send("text.delta", { text: "a" });
    stream.send("text.delta", { text: "b" });
    // Still held at the end of the tick: something the run does next (its provider request)
    // goes first.
    await new Promise((resolve) => process.nextTick(resolve));
    expect(chunks).toHaveLength(0);
    stream.send("usage", { inputTokens: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(1);
    stream.send("text.delta", { text: "c" });
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(2);
    stream.send("run.ended", { reason: "completed" });
    // Ending in the same tick still sends what was corked, before the end.
    stream.end();
    expect(parseSseEvents(chunks.join("")).map(({ event }) => event)).toEqual([
      "text.delta",
      "text.delta",
      "usage",
      "text.delta",
      "run.ended",
    ]);
  });

  it("sends what is corked at once on flush, before the tick ends, and keeps batching after", async () => {
    const { raw, chunks } = response();
    const stream = new SseStream(raw);
    stream.send("text.delta", { text: "a" });
    stream.send("text.delta", { text: "b" });
    // The run is about to write to the store: the client gets the text first.
    stream.flush();
    expect(chunks).toHaveLength(1);
    expect(parseSseEvents(chunks[0]!).map(({ data }) => data)).toEqual([
      { text: "a" },
      { text: "b" },
    ]);
    // Nothing corked: a flush writes nothing.
    stream.flush();
    expect(chunks).toHaveLength(1);
    // Later events of the same tick are batched again, and the pending tick's uncork is
    // harmless.
    stream.send("usage", { inputTokens: 1 });
    stream.send("run.ended", { reason: "completed" });
    expect(chunks).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toHaveLength(2);
    expect(parseSseEvents(chunks.join("")).map(({ event }) => event)).toEqual([
      "text.delta",
      "text.delta",
      "usage",
      "run.ended",
    ]);
  });
});
