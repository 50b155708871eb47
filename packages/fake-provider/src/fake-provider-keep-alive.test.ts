import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { defaultKeepAliveTimeoutMs, startFakeProvider } from "./fake-provider.js";
import type { FakeProvider } from "./fake-provider.js";

const providers: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

async function start(options: { keepAliveTimeoutMs?: number } = {}): Promise<FakeProvider> {
  const provider = await startFakeProvider(options);
  providers.push(provider);
  return provider;
}

const streamedBody = JSON.stringify({ model: "gpt-5", input: "go", stream: true });

function rawRequest(body: string): string {
  return [
    "POST /v1/responses HTTP/1.1",
    "Host: fake",
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

/**
 * One keep-alive connection, two streamed calls, `idleMs` of silence between them: what a client
 * does when its event loop is busy (a gateway serialising megabyte bodies, 16 at once) and its
 * pool cannot drop the connection in time. Says how the second call went.
 */
async function secondCallAfterIdle(provider: FakeProvider, idleMs: number): Promise<string> {
  const socket = connect(provider.port, "127.0.0.1");
  let received = "";
  let ended = false;
  socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
  socket.on("end", () => (ended = true));
  socket.on("error", () => (ended = true));
  const until = async (done: () => boolean): Promise<void> => {
    while (!done() && !ended) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  const completions = () => received.split("event: response.completed").length - 1;
  try {
    socket.write(rawRequest(streamedBody));
    await until(() => completions() === 1 && received.endsWith("0\r\n\r\n"));
    if (completions() !== 1) return "the first call failed";
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    if (ended) return "closed by the server while idle";
    socket.write(rawRequest(streamedBody));
    await until(() => completions() === 2 && received.endsWith("0\r\n\r\n"));
    return completions() === 2 ? "answered" : "lost";
  } finally {
    socket.destroy();
  }
}

describe("fake provider keep-alive", () => {
  it("keeps idle connections a minute by default and says so on JSON and streamed answers", async () => {
    expect(defaultKeepAliveTimeoutMs).toBe(60_000);
    const provider = await start();
    const health = await fetch(`${provider.url}/healthz`);
    await health.text();
    expect(health.headers.get("keep-alive")).toBe("timeout=60");
    // Without the hint on a stream, fetch would assume 4 s and disagree with the server.
    const streamed = await fetch(`${provider.openaiBaseURL}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamedBody,
    });
    expect(await streamed.text()).toContain("event: response.completed");
    expect(streamed.headers.get("keep-alive")).toBe("timeout=60");
    expect(streamed.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  });

  it("answers a call on a connection idle for 7 s, which Node's 5 s default had closed", async () => {
    // With Node's 5 s (+1 s) the connection is gone; a busy client that could not see the close
    // sends on it anyway and loses the call ("other side closed", the OpenAI SDK's "Connection
    // error.": the bench's 1 000-turn × 16 failure).
    const [byDefault, nodeDefault] = await Promise.all([
      start().then((provider) => secondCallAfterIdle(provider, 7_000)),
      start({ keepAliveTimeoutMs: 5_000 }).then((provider) => secondCallAfterIdle(provider, 7_000)),
    ]);
    expect(byDefault).toBe("answered");
    expect(nodeDefault).toBe("closed by the server while idle");
  }, 20_000);

  it("refuses a negative or fractional idle timeout", async () => {
    await expect(startFakeProvider({ keepAliveTimeoutMs: -1 })).rejects.toThrow(
      "keepAliveTimeoutMs must be a non-negative integer (ms), got -1",
    );
    await expect(startFakeProvider({ keepAliveTimeoutMs: 1.5 })).rejects.toThrow(RangeError);
  });
});
