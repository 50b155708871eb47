import type { ProviderEvent } from "@cursor/run";
import {
  AuthenticationError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RunCancelledError,
} from "@cursor/run";
import { afterEach, describe, expect, it, vi } from "vitest";
import { codingSession } from "./__fixtures__/coding-session.js";
import { createOpenAIResponsesAdapter } from "./openai-responses-adapter.js";

// SDK round trips against a scripted `fetch`: what the SDK sends and how the adapter reads what
// comes back, without a network. The fake provider server is exercised in responses-e2e.test.ts.

interface SentRequest {
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
}

function sse(events: readonly unknown[]): string {
  return events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("");
}

function scriptedFetch(
  respond: (request: SentRequest, signal: AbortSignal | undefined) => Response,
) {
  const sent: SentRequest[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
    const request = {
      url: String(input),
      headers: new Headers(init?.headers),
      // Read as any fetch reads it: the adapter sends a stream of the JSON bytes.
      body: await new Response(init?.body ?? null).text(),
    };
    sent.push(request);
    return respond(request, init?.signal ?? undefined);
  };
  return { sent, fetch: fetchImpl as typeof fetch };
}

const completed = {
  type: "response.completed",
  response: {
    status: "completed",
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2 },
  },
};

async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const out: ProviderEvent[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

async function failure(stream: AsyncIterable<ProviderEvent>): Promise<unknown> {
  try {
    await collect(stream);
  } catch (error) {
    return error;
  }
  throw new Error("expected the stream to fail");
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("createOpenAIResponsesAdapter", () => {
  it("sends exactly the serialised bytes with the configured key and headers", async () => {
    const { sent, fetch } = scriptedFetch(
      () =>
        new Response(sse([{ type: "response.output_text.delta", delta: "Hi" }, completed]), {
          headers: { "content-type": "text/event-stream" },
        }),
    );
    const adapter = createOpenAIResponsesAdapter({
      apiKey: "sk-test",
      baseURL: "http://provider.test/v1",
      headers: { "x-team": "blue" },
      promptCacheRetention: "24h",
      fetch,
    });
    expect(adapter.id).toBe("openai-responses");
    const request = codingSession().turn1Call2;
    const events = await collect(adapter.stream(request));
    expect(events).toEqual([
      { type: "text-delta", text: "Hi" },
      {
        type: "usage",
        usage: { inputTokens: 10, cachedInputTokens: 0, cacheWriteTokens: 0, outputTokens: 2 },
      },
      { type: "finish", reason: "stop" },
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe("http://provider.test/v1/responses");
    expect(sent[0]?.headers.get("authorization")).toBe("Bearer sk-test");
    expect(sent[0]?.headers.get("x-team")).toBe("blue");
    expect(sent[0]?.headers.get("content-type")).toBe("application/json");
    expect(sent[0]?.body).toBe(JSON.stringify(adapter.serialize(request).body));
  });

  it("does not retry in the SDK and reports 429 with its retry-after", async () => {
    const { sent, fetch } = scriptedFetch(
      () =>
        new Response(
          JSON.stringify({ error: { message: "Rate limit", code: "rate_limit_exceeded" } }),
          {
            status: 429,
            headers: { "content-type": "application/json", "retry-after-ms": "1200" },
          },
        ),
    );
    const adapter = createOpenAIResponsesAdapter({ apiKey: "k", baseURL: "http://p/v1", fetch });
    const error = await failure(adapter.stream(codingSession().turn1Call1));
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryAfterMs: 1200, status: 429 });
    expect(sent).toHaveLength(1);
  });

  it("reports a 500 as a retryable server error", async () => {
    const { fetch } = scriptedFetch(
      () =>
        new Response(JSON.stringify({ error: { message: "boom", type: "server_error" } }), {
          status: 500,
          headers: { "content-type": "application/json" },
        }),
    );
    const adapter = createOpenAIResponsesAdapter({ apiKey: "k", baseURL: "http://p/v1", fetch });
    const error = await failure(adapter.stream(codingSession().turn1Call1));
    expect(ProviderServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 500, retryable: true });
  });

  it("reports a body that closes mid-answer as a network error", async () => {
    const { fetch } = scriptedFetch(
      () =>
        new Response(sse([{ type: "response.output_text.delta", delta: "Half" }]), {
          headers: { "content-type": "text/event-stream" },
        }),
    );
    const adapter = createOpenAIResponsesAdapter({ apiKey: "k", baseURL: "http://p/v1", fetch });
    const seen: ProviderEvent[] = [];
    const error = await failure(
      (async function* () {
        for await (const event of adapter.stream(codingSession().turn1Call1)) {
          seen.push(event);
          yield event;
        }
      })(),
    );
    expect(seen).toEqual([{ type: "text-delta", text: "Half" }]);
    expect(NetworkError.isInstance(error)).toBe(true);
  });

  it("stops with RunCancelledError when the signal aborts mid-stream", async () => {
    const { fetch } = scriptedFetch((_, signal) => {
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(
            encoder.encode(sse([{ type: "response.output_text.delta", delta: "A" }])),
          );
          signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const adapter = createOpenAIResponsesAdapter({ apiKey: "k", baseURL: "http://p/v1", fetch });
    const controller = new AbortController();
    const seen: ProviderEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapter.stream(codingSession().turn1Call1, {
        signal: controller.signal,
      })) {
        seen.push(event);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([{ type: "text-delta", text: "A" }]);
    expect(RunCancelledError.isInstance(caught)).toBe(true);
  });

  it("does not call the provider when the signal is already aborted", async () => {
    const { sent, fetch } = scriptedFetch(() => new Response(""));
    const adapter = createOpenAIResponsesAdapter({ apiKey: "k", baseURL: "http://p/v1", fetch });
    const error = await failure(
      adapter.stream(codingSession().turn1Call1, { signal: AbortSignal.abort() }),
    );
    expect(RunCancelledError.isInstance(error)).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it("serialises without a key and reports a missing key as an authentication error", async () => {
    vi.stubEnv("OPENAI_API_KEY", "");
    const adapter = createOpenAIResponsesAdapter({ baseURL: "http://p/v1" });
    expect(adapter.serialize(codingSession().turn1Call1).body.store).toBe(false);
    const error = await failure(adapter.stream(codingSession().turn1Call1));
    expect(AuthenticationError.isInstance(error)).toBe(true);
  });
});
