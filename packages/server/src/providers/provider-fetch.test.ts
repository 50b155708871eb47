import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { JsonBodyStream } from "@cursor/run";
import { startFakeProvider } from "@cursor/testkit";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { loadOrCreateProxyCa } from "../proxy/proxy-ca.js";
import { createProviderFetch } from "./provider-fetch.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A real HTTP server on loopback; counts the connections it accepted. */
async function server(handler: Handler, tls?: { certPem: string; keyPem: string }) {
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handler(request, Buffer.concat(chunks).toString(), response));
  };
  const listener =
    tls === undefined
      ? http.createServer(onRequest)
      : https.createServer({ cert: tls.certPem, key: tls.keyPem }, onRequest);
  let connections = 0;
  listener.on(tls === undefined ? "connection" : "secureConnection", () => (connections += 1));
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        listener.closeAllConnections();
        listener.close(resolve);
      }),
  );
  const { port } = listener.address() as AddressInfo;
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}`,
    connections: () => connections,
  };
}

describe("createProviderFetch", () => {
  it("sends a string body as it is and answers status, headers, body and url", async () => {
    const seen: { method?: string; headers?: IncomingMessage["headers"]; body?: string } = {};
    const target = await server((request, body, response) => {
      Object.assign(seen, { method: request.method, headers: request.headers, body });
      response.writeHead(201, "Made", { "x-request-id": "req_1", "content-type": "text/plain" });
      response.end("héllo");
    });
    const fetch = createProviderFetch();
    const body = JSON.stringify({ text: "ünïcode ✓" });
    const response = await fetch(`${target.url}/v1/things?x=1`, {
      method: "post",
      headers: { "Content-Type": "application/json", Authorization: "Bearer k" },
      body,
    });
    expect(seen.method).toBe("POST");
    expect(seen.body).toBe(body);
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(seen.headers?.authorization).toBe("Bearer k");
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-request-id")).toBe("req_1");
    expect(response.url).toBe(`${target.url}/v1/things?x=1`);
    expect(await response.text()).toBe("héllo");
  });

  it("writes a JsonBodyStream's pieces with their content-length, without reading the stream", async () => {
    const seen: { headers?: IncomingMessage["headers"]; body?: string } = {};
    const target = await server((request, body, response) => {
      Object.assign(seen, { headers: request.headers, body });
      response.end("ok");
    });
    const value = {
      model: "m",
      input: Array.from({ length: 3_000 }, (_, index) => ({ text: `ünïcode ✓ 😀 ${index}` })),
    };
    const body = JsonBodyStream.of(value);
    const response = await createProviderFetch()(`${target.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(await response.text()).toBe("ok");
    expect(seen.body).toBe(JSON.stringify(value));
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify(value))));
    expect(seen.headers?.["transfer-encoding"]).toBeUndefined();
    // The pieces were taken and written as they are: the web stream was never read.
    expect(body.locked).toBe(false);
    expect(() => body.takePieces()).toThrow(/sent already/);
  });

  it("hands over a streamed body as it arrives and keeps the connection for the next call", async () => {
    let release: () => void = () => undefined;
    const target = await server((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      release = () => response.end("data: two\n\n");
    });
    const fetch = createProviderFetch();
    const response = await fetch(`${target.url}/stream`, { method: "POST", body: "{}" });
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The first event is readable while the server still holds the stream open.
    expect(Buffer.from(first.value!).toString()).toBe("data: one\n\n");
    release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += Buffer.from(value).toString();
    }
    expect(rest).toBe("data: two\n\n");
    const again = await fetch(`${target.url}/stream`, { method: "POST", body: "{}" });
    const reading = again.text();
    release();
    await reading;
    expect(target.connections()).toBe(1);
  });

  it("inflates a gzip body and gives a 204 no body", async () => {
    const target = await server((request, _body, response) => {
      if (request.url === "/empty") {
        response.writeHead(204);
        response.end();
        return;
      }
      response.writeHead(200, { "content-encoding": "gzip", "content-type": "application/json" });
      response.end(gzipSync('{"ok":true}'));
    });
    const fetch = createProviderFetch();
    expect(await (await fetch(`${target.url}/zipped`)).json()).toEqual({ ok: true });
    const empty = await fetch(`${target.url}/empty`, { method: "DELETE" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("rejects with the signal's reason before the response, and fails the body after it", async () => {
    const target = await server((request, _body, response) => {
      if (request.url === "/slow") return; // never answers
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
    });
    const fetch = createProviderFetch();
    const early = new AbortController();
    early.abort(new Error("stop now"));
    await expect(fetch(`${target.url}/slow`, { signal: early.signal })).rejects.toThrow("stop now");

    const waiting = new AbortController();
    const pending = fetch(`${target.url}/slow`, {
      method: "POST",
      body: "{}",
      signal: waiting.signal,
    });
    waiting.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const streaming = new AbortController();
    const response = await fetch(`${target.url}/open`, { signal: streaming.signal });
    const reader = response.body!.getReader();
    await reader.read();
    streaming.abort();
    await expect(reader.read()).rejects.toBeDefined();
  });

  it("fails a body the server cuts off, and a refused connection, with transport error codes", async () => {
    const target = await server((_request, _body, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const fetch = createProviderFetch();
    const response = await fetch(`${target.url}/cut`);
    await expect(response.text()).rejects.toMatchObject({ code: "ECONNRESET" });

    const closed = await server(() => undefined);
    const port = new URL(closed.url).port;
    await closers.pop()!();
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
  });

  it("speaks HTTPS to a server whose certificate it is told to trust", async () => {
    const folder = mkdtempSync(join(tmpdir(), "provider-fetch-ca-"));
    closers.push(async () => rmSync(folder, { recursive: true, force: true }));
    const ca = await loadOrCreateProxyCa({ folder });
    const target = await server(
      (_request, body, response) => response.end(`echo ${body}`),
      await ca.issue({ hosts: ["127.0.0.1"] }),
    );
    const trusted = createProviderFetch({ ca: ca.certPem });
    expect(await (await trusted(target.url, { method: "POST", body: "x" })).text()).toBe("echo x");
    // Without the CA the certificate is refused, as it must be.
    await expect(createProviderFetch()(target.url)).rejects.toThrow();
  });

  it("leaves a body it does not send itself (a stream) to the built-in fetch", async () => {
    const target = await server((_request, body, response) => response.end(`got ${body}`));
    const fetch = createProviderFetch();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("streamed"));
        controller.close();
      },
    });
    const response = await fetch(target.url, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(await response.text()).toBe("got streamed");
  });

  it("carries the official OpenAI SDK's streamed call to the fake provider", async () => {
    const fake = await startFakeProvider();
    closers.push(() => fake.close());
    fake.enqueue({ type: "text", text: "hello from the fake", chunks: 3 });
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: fake.openaiBaseURL,
      maxRetries: 0,
      fetch: createProviderFetch(),
    });
    const stream = await client.responses.create({
      model: "gpt-5",
      input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }],
      stream: true,
    });
    let text = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(text).toBe("hello from the fake");
  });

  it("carries a provider package's JSON-pieces body through the official SDK, byte for byte", async () => {
    const fake = await startFakeProvider();
    closers.push(() => fake.close());
    fake.enqueue({ type: "text", text: "pieces arrived", chunks: 2 });
    const client = new OpenAI({
      apiKey: "sk-test",
      baseURL: fake.openaiBaseURL,
      maxRetries: 0,
      fetch: createProviderFetch(),
    });
    const params = {
      model: "gpt-5",
      input: Array.from({ length: 800 }, (_, index) => ({
        role: "user" as const,
        content: [{ type: "input_text" as const, text: `turn ${index}: ${"é".repeat(100)}` }],
      })),
      stream: true as const,
    };
    const stream = await client.responses.create(params, {
      body: JsonBodyStream.of(params),
      headers: { "content-type": "application/json" },
    });
    let text = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(text).toBe("pieces arrived");
    expect(JSON.stringify(fake.requests[0]?.body)).toBe(JSON.stringify(params));
    expect(fake.requests[0]?.headers["content-length"]).toBe(
      String(Buffer.byteLength(JSON.stringify(params))),
    );
  });
});
