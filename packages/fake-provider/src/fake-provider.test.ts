import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";
import { InvalidFakeReplyError } from "./fake-provider-errors.js";

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const post = (url: string, body: unknown, raw = false) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer secret", cookie: "a=b" },
    body: raw ? String(body) : JSON.stringify(body),
  });

describe("fake provider server", () => {
  it("serves its URLs, a health check and 404 for unknown routes", async () => {
    provider = await startFakeProvider();
    expect(provider.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(provider.openaiBaseURL).toBe(`${provider.url}/v1`);
    expect(provider.anthropicBaseURL).toBe(provider.url);
    expect(await (await fetch(`${provider.url}/healthz`)).json()).toEqual({ ok: true });
    const missing = await fetch(`${provider.url}/v1/embeddings`, { method: "POST" });
    expect(missing.status).toBe(404);
  });

  it("answers invalid JSON and schema violations with 400 without using a scripted reply", async () => {
    provider = await startFakeProvider();
    provider.enqueue({ type: "text", text: "kept" });
    const broken = await post(`${provider.url}/v1/chat/completions`, "{not json", true);
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    const invalid = await post(`${provider.url}/v1/messages`, { model: "claude", messages: [] });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") },
    });
    expect(provider.pendingReplies()).toBe(1);
    expect(provider.requests.map((r) => [r.api, r.status, r.reply])).toEqual([
      ["openai-chat", 400, null],
      ["anthropic", 400, null],
    ]);
    expect(provider.requests[1]!.headers.authorization).toBeUndefined();
    expect(provider.requests[1]!.headers.cookie).toBeUndefined();
    expect(provider.requests[1]!.headers["content-type"]).toBe("application/json");
  });

  it("overflows above the context window without using a scripted reply", async () => {
    provider = await startFakeProvider({ contextWindow: 50 });
    provider.enqueue({ type: "text", text: "kept" });
    const client = new OpenAI({ apiKey: "k", baseURL: provider.openaiBaseURL, maxRetries: 0 });
    await expect(client.responses.create({ model: "m", input: "short" })).resolves.toMatchObject({
      output_text: "kept",
    });
    await expect(
      client.responses.create({ model: "m", input: "long ".repeat(100) }),
    ).rejects.toMatchObject({
      status: 400,
      code: "context_length_exceeded",
    });
    expect(provider.requests.at(-1)!.error?.body).toMatchObject({
      error: { message: expect.stringMatching(/maximum context length is 50 tokens/) },
    });
  });

  it("uses a default reply function when nothing is queued, and validates enqueued replies", async () => {
    provider = await startFakeProvider({
      defaultReply: (request) => ({
        type: "text",
        text: `echo ${request.api} #${request.sequence}`,
      }),
    });
    const client = new OpenAI({ apiKey: "k", baseURL: provider.openaiBaseURL, maxRetries: 0 });
    const answer = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "x" }],
    });
    expect(answer.choices[0]!.message.content).toBe("echo openai-chat #0");
    expect(() => provider!.enqueue({ type: "text" } as never)).toThrow(InvalidFakeReplyError);
  });

  it("drops a non-streaming answer half-way for a cut reply", async () => {
    provider = await startFakeProvider();
    provider.enqueue({ type: "cut", afterEvents: 0, reply: { type: "text", text: "never whole" } });
    const client = new OpenAI({ apiKey: "k", baseURL: provider.openaiBaseURL, maxRetries: 0 });
    await expect(client.responses.create({ model: "m", input: "x" })).rejects.toThrow();
    expect(provider.requests[0]!.status).toBe(200);
  });

  it("exposes requests and stats over HTTP and forgets everything on reset", async () => {
    provider = await startFakeProvider({ cache: { clock: () => 0, openaiMinTokens: 16 } });
    const body = {
      model: "m",
      prompt_cache_key: "k",
      input: [{ role: "user", content: "hello ".repeat(40) }],
    };
    await post(`${provider.openaiBaseURL}/responses`, body);
    await post(`${provider.openaiBaseURL}/responses`, body);
    const requests = (await (await fetch(`${provider.url}/_fake/requests`)).json()) as {
      requests: { body: unknown; usage: { cachedInputTokens: number } }[];
    };
    expect(requests.requests.map((r) => r.body)).toEqual([body, body]);
    const stats = (await (await fetch(`${provider.url}/_fake/stats`)).json()) as {
      sessions: { namespace: string }[];
    };
    expect(stats.sessions.map((s) => s.namespace)).toEqual(["model=m prompt_cache_key=k"]);
    expect(provider.requests[1]!.usage!.cachedInputTokens).toBe(
      provider.requests[1]!.cache!.cachedTokens,
    );
    expect(provider.requests[1]!.cache!.cachedTokens).toBeGreaterThan(0);
    expect((await post(`${provider.url}/_fake/reset`, {})).status).toBe(200);
    expect(provider.requests).toEqual([]);
    expect(provider.cacheStats().sessions).toEqual([]);
  });
});
