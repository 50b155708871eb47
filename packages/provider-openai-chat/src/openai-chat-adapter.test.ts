import { describe, expect, it, vi } from "vitest";
import type { ProviderEvent } from "@cursor/run";
import {
  AuthenticationError,
  ProviderServerError,
  RateLimitError,
  RunCancelledError,
} from "@cursor/run";
import { conversationRequests } from "./__fixtures__/conversation.js";
import { chunk, parallelToolCallChunks } from "./__fixtures__/chunks.js";
import { createOpenAIChatAdapter } from "./openai-chat-adapter.js";

interface RecordedCall {
  url: string;
  headers: Headers;
  body: string;
}

function sse(chunks: readonly unknown[], { done = true } = {}): string {
  return (
    chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`).join("") +
    (done ? "data: [DONE]\n\n" : "")
  );
}

/** A fetch that records each call and answers from a queue of responses. */
function scriptedFetch(responses: Array<(init: RequestInit | undefined) => Response>) {
  const calls: RecordedCall[] = [];
  const fetchImpl = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    calls.push({
      url: String(input instanceof Request ? input.url : input),
      headers: new Headers(init?.headers),
      // Read as any fetch reads it: the adapter sends a stream of the JSON bytes.
      body: await new Response(init?.body ?? null).text(),
    });
    const next = responses.shift();
    if (next === undefined) throw new Error("no scripted response left");
    return next(init);
  };
  return { calls, fetch: fetchImpl as typeof fetch };
}

const sseHeaders = { "content-type": "text/event-stream" };

async function collect(iterable: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe("createOpenAIChatAdapter", () => {
  const request = conversationRequests()[1]!;

  it("has the provider id and serialises without a key or a network", () => {
    const adapter = createOpenAIChatAdapter({ systemRole: "developer" });
    expect(adapter.id).toBe("openai-chat");
    expect(adapter.serialize(request).body.messages[0]).toEqual({
      role: "developer",
      content: "You are a coding agent. Be concise.",
    });
  });

  it("sends exactly the serialised bytes through the SDK, with the configured base URL and headers", async () => {
    const scripted = scriptedFetch([
      () => new Response(sse(parallelToolCallChunks), { status: 200, headers: sseHeaders }),
    ]);
    const adapter = createOpenAIChatAdapter({
      apiKey: "sk-test",
      baseURL: "http://chat.invalid/v1",
      headers: { "x-gateway": "cursor" },
      fetch: scripted.fetch,
    });
    const events = await collect(adapter.stream(request));
    expect(events.map((event) => event.type)).toEqual([
      "tool-call",
      "tool-call",
      "usage",
      "finish",
    ]);
    expect(scripted.calls).toHaveLength(1);
    const [call] = scripted.calls;
    expect(call!.url).toBe("http://chat.invalid/v1/chat/completions");
    expect(call!.body).toBe(JSON.stringify(adapter.serialize(request).body));
    expect(call!.headers.get("content-type")).toBe("application/json");
    expect(call!.headers.get("authorization")).toBe("Bearer sk-test");
    expect(call!.headers.get("x-gateway")).toBe("cursor");
  });

  it("does not retry on its own: one request per stream call, errors classified", async () => {
    const scripted = scriptedFetch([
      () => new Response(JSON.stringify({ error: { message: "overloaded" } }), { status: 503 }),
      () =>
        new Response(
          JSON.stringify({ error: { message: "slow down", code: "rate_limit_exceeded" } }),
          {
            status: 429,
            headers: { "retry-after": "3" },
          },
        ),
    ]);
    const adapter = createOpenAIChatAdapter({
      apiKey: "sk-test",
      baseURL: "http://chat.invalid/v1",
      fetch: scripted.fetch,
    });
    await expect(collect(adapter.stream(request))).rejects.toSatisfy((error) =>
      ProviderServerError.isInstance(error),
    );
    expect(scripted.calls).toHaveLength(1);
    await expect(collect(adapter.stream(request))).rejects.toSatisfy(
      (error) => RateLimitError.isInstance(error) && error.retryAfterMs === 3000,
    );
    expect(scripted.calls).toHaveLength(2);
  });

  it("stops with RunCancelledError when the signal aborts mid-stream", async () => {
    const encoder = new TextEncoder();
    let aborted = false;
    // Like a real fetch: the first chunk arrives, then the body stays open until the request's
    // signal aborts, which errors the body being read.
    const scripted = scriptedFetch([
      (init) => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(sse([chunk({ content: "Hel" })], { done: false })));
            init?.signal?.addEventListener("abort", () => {
              aborted = true;
              controller.error(new DOMException("aborted", "AbortError"));
            });
          },
        });
        return new Response(body, { status: 200, headers: sseHeaders });
      },
    ]);
    const adapter = createOpenAIChatAdapter({
      apiKey: "sk-test",
      baseURL: "http://chat.invalid/v1",
      fetch: scripted.fetch,
    });
    const controller = new AbortController();
    const events: ProviderEvent[] = [];
    const run = async () => {
      for await (const event of adapter.stream(request, { signal: controller.signal })) {
        events.push(event);
        controller.abort();
      }
    };
    await expect(run()).rejects.toSatisfy((error) => RunCancelledError.isInstance(error));
    expect(events).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect(aborted).toBe(true);
  });

  it("refuses to start when the signal is already aborted", async () => {
    const scripted = scriptedFetch([]);
    const adapter = createOpenAIChatAdapter({ apiKey: "sk-test", fetch: scripted.fetch });
    await expect(
      collect(adapter.stream(request, { signal: AbortSignal.abort() })),
    ).rejects.toSatisfy((error) => RunCancelledError.isInstance(error));
    expect(scripted.calls).toHaveLength(0);
  });

  it("serialises without a key and reports a missing key as an authentication error", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    try {
      const adapter = createOpenAIChatAdapter({ baseURL: "http://p/v1" });
      expect(adapter.serialize(request).body.stream).toBe(true);
      await expect(collect(adapter.stream(request))).rejects.toSatisfy((error) =>
        AuthenticationError.isInstance(error),
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
