import { describe, expect, it } from "vitest";
import { NetworkError, ProviderServerError, RunCancelledError } from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import { conversationRequests } from "./__fixtures__/conversation.js";
import { toolRoundEvents } from "./__fixtures__/anthropic-stream-events.js";
import { createAnthropicAdapter } from "./anthropic-adapter.js";

interface RecordedCall {
  url: string;
  headers: Headers;
  body: string;
}

const sse = (events: readonly unknown[]) =>
  events
    .map(
      (event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`,
    )
    .join("");

/**
 * A `fetch` that records each request and answers with the given SSE events; with `hang`, the
 * body stays open after them until the request's signal aborts.
 */
function fakeFetch(answer: { events?: readonly unknown[]; status?: number; hang?: boolean }) {
  const calls: RecordedCall[] = [];
  const fetchImpl = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    calls.push({
      url: String(input),
      headers: new Headers(init?.headers),
      // Read as any fetch reads it: the adapter sends a stream of the JSON bytes.
      body: await new Response(init?.body ?? null).text(),
    });
    if (answer.status !== undefined) {
      return new Response(
        JSON.stringify({ type: "error", error: { type: "api_error", message: "boom" } }),
        {
          status: answer.status,
          headers: { "content-type": "application/json" },
        },
      );
    }
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(sse(answer.events ?? [])));
        if (answer.hang !== true) {
          controller.close();
          return;
        }
        init?.signal?.addEventListener("abort", () =>
          controller.error(new DOMException("aborted", "AbortError")),
        );
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  };
  return { calls, fetch: fetchImpl as typeof fetch };
}

async function drain(iterable: AsyncIterable<ProviderEvent>) {
  const events: ProviderEvent[] = [];
  try {
    for await (const event of iterable) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events, error: undefined };
}

const request = conversationRequests[3]!;

describe("createAnthropicAdapter", () => {
  it("sends exactly the serialised body with the configured headers", async () => {
    const fake = fakeFetch({ events: toolRoundEvents });
    const adapter = createAnthropicAdapter({
      apiKey: "test-key",
      baseURL: "http://fake.invalid",
      headers: { "x-team": "cursor" },
      fetch: fake.fetch,
    });
    expect(adapter.id).toBe("anthropic");
    const { events, error } = await drain(adapter.stream(request));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.url).toBe("http://fake.invalid/v1/messages");
    expect(fake.calls[0]!.body).toBe(JSON.stringify(adapter.serialize(request).body));
    expect(fake.calls[0]!.headers.get("content-type")).toBe("application/json");
    expect(fake.calls[0]!.headers.get("x-team")).toBe("cursor");
  });

  it("does not retry: one request per stream call, even on a 500", async () => {
    const fake = fakeFetch({ status: 500 });
    const adapter = createAnthropicAdapter({
      apiKey: "k",
      baseURL: "http://fake.invalid",
      fetch: fake.fetch,
    });
    const { error } = await drain(adapter.stream(request));
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(fake.calls).toHaveLength(1);
  });

  it("throws RunCancelledError without sending when the signal is already aborted", async () => {
    const fake = fakeFetch({ events: toolRoundEvents });
    const adapter = createAnthropicAdapter({
      apiKey: "k",
      baseURL: "http://fake.invalid",
      fetch: fake.fetch,
    });
    const controller = new AbortController();
    controller.abort();
    const { error } = await drain(adapter.stream(request, { signal: controller.signal }));
    expect(RunCancelledError.isInstance(error)).toBe(true);
    expect(fake.calls).toHaveLength(0);
  });

  it("throws RunCancelledError when aborted mid-stream", async () => {
    const fake = fakeFetch({ events: toolRoundEvents.slice(0, 5), hang: true });
    const adapter = createAnthropicAdapter({
      apiKey: "k",
      baseURL: "http://fake.invalid",
      fetch: fake.fetch,
    });
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter.stream(request, { signal: controller.signal })) {
        events.push(event);
        if (events.length === 2) controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(events.map((event) => event.type)).toEqual(["reasoning-delta", "reasoning-delta"]);
    expect(RunCancelledError.isInstance(caught)).toBe(true);
  });

  it("reports a body that ends before message_stop as a network error", async () => {
    const fake = fakeFetch({ events: toolRoundEvents.slice(0, 10) });
    const adapter = createAnthropicAdapter({
      apiKey: "k",
      baseURL: "http://fake.invalid",
      fetch: fake.fetch,
    });
    const { error } = await drain(adapter.stream(request));
    expect(NetworkError.isInstance(error)).toBe(true);
  });

  it("rejects invalid options", () => {
    expect(() => createAnthropicAdapter({ apiKey: "k", maxTokens: 0 })).toThrow(RangeError);
    expect(() => createAnthropicAdapter({ apiKey: "k", thinking: { budgetTokens: 100 } })).toThrow(
      "thinking.budgetTokens must be an integer ≥ 1024, got 100",
    );
  });
});
