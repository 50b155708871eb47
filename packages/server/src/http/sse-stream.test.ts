import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseSseEvents } from "../client/gateway-client.js";
import { SseStream } from "./sse-stream.js";

function response() {
  const chunks: string[] = [];
  const listeners: (() => void)[] = [];
  const fake = {
    destroyed: false,
    writable: true,
    writeHead: () => fake,
    flushHeaders: () => undefined,
    write: (chunk: string) => chunks.push(chunk) > 0,
    end: () => {
      fake.writable = false;
      for (const listener of listeners) listener();
    },
    once: (_event: string, listener: () => void) => listeners.push(listener),
  };
  return { raw: fake as unknown as ServerResponse, chunks };
}

afterEach(() => vi.useRealTimers());

describe("SseStream heartbeats", () => {
  it("sends a comment only when nothing else went out for a heartbeat interval, and stops at the end", () => {
    vi.useFakeTimers();
    const { raw, chunks } = response();
    const stream = new SseStream(raw, { heartbeatMs: 1_000 });
    vi.advanceTimersByTime(1_000);
    expect(chunks).toEqual([": keep-alive\n\n"]);
    stream.send("text.delta", { text: "a" });
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
