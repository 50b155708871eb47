import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { bidiAppend, bidiRequestId, modelIds, runRequestMessage } from "./cursor-messages.js";
import { connectThroughProxy, h2ThroughProxy, tlsThroughProxy } from "./proxy-client.js";
import { startProxyFixture } from "./proxy-fixture.js";
import type { ProxyFixture } from "./proxy-fixture.js";
import { cursorClient, ideHeaders, until } from "./test-clients.js";
import type { ClientProtocol } from "./test-clients.js";

const protoHeaders = { ...ideHeaders, "content-type": "application/proto" };

function runAppend({ requestId, model }: { requestId: string; model: string }) {
  return bidiAppend({
    requestId,
    seqno: 0,
    message: runRequestMessage({
      conversationId: `c-${requestId}`,
      model: { requestedModel: model },
    }),
  });
}

let fixture: ProxyFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function start(options: Parameters<typeof startProxyFixture>[0] = {}): Promise<ProxyFixture> {
  fixture = await startProxyFixture(options);
  return fixture;
}

/** Everything the proxy held for a finished client is released. */
async function expectNothingHeld(proxy: ProxyFixture["proxy"]) {
  await until(() => {
    const stats = proxy.stats();
    return (
      stats.connections.open === 0 &&
      stats.tunnels.open === 0 &&
      stats.intercepted.open === 0 &&
      stats.held === 0
    );
  });
}

describe.each<ClientProtocol>(["h1", "h2"])("faults, client %s", (protocol) => {
  it("Cursor's server down: a clear Connect error for relayed routes and Cursor runs, nothing hung", async () => {
    const { proxy, proxyCa, cursor } = await start();
    await cursor.close();
    const client = await cursorClient({ protocol, proxyPort: proxy.port, ca: [proxyCa.certPem] });
    try {
      const unrelated = await client.request({
        path: "/aiserver.v1.AiService/GetServerConfig",
        headers: protoHeaders,
        body: new Uint8Array(),
      });
      expect(unrelated.status).toBe(502);
      expect(unrelated.headers["content-type"]).toBe("application/json");
      const error = JSON.parse(unrelated.body.toString("utf8")) as {
        code: string;
        message: string;
      };
      expect(error.code).toBe("unavailable");
      expect(error.message).toMatch(
        /^cursor-gateway proxy: Cursor's server did not answer: https:\/\/127\.0\.0\.1:\d+ is not reachable \(ECONNREFUSED\)$/,
      );

      const append = await client.request({
        path: "/aiserver.v1.BidiService/BidiAppend",
        headers: protoHeaders,
        body: runAppend({ requestId: "down-1", model: "gpt-5" }),
      });
      expect(append.status).toBe(502);
      const runSse = await client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: protoHeaders,
        body: bidiRequestId("down-1"),
      });
      expect(runSse.status).toBe(502);
      // The model list is never invented when Cursor cannot give its own.
      const models = await client.request({
        path: "/aiserver.v1.AiService/AvailableModels",
        headers: protoHeaders,
        body: new Uint8Array(),
      });
      expect(models.status).toBe(502);
      expect(proxy.stats().requests.failed).toBe(4);
    } finally {
      client.close();
    }
    await expectNothingHeld(proxy);
  });

  it("the gateway down: a BYOK run gets a clear error naming the gateway; the models still list", async () => {
    const { proxy, proxyCa, gateway, logs } = await start();
    await gateway.close();
    const client = await cursorClient({ protocol, proxyPort: proxy.port, ca: [proxyCa.certPem] });
    try {
      const append = await client.request({
        path: "/aiserver.v1.BidiService/BidiAppend",
        headers: protoHeaders,
        body: runAppend({ requestId: "gw-down", model: "byok-gpt-5" }),
      });
      expect(append.status).toBe(502);
      const error = JSON.parse(append.body.toString("utf8")) as { code: string; message: string };
      expect(error.code).toBe("unavailable");
      expect(error.message).toContain(`the gateway at ${gateway.origin} did not answer`);
      expect(error.message).toContain("is cursor-gateway running?");
      const runSse = await client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: protoHeaders,
        body: bidiRequestId("gw-down"),
      });
      expect(runSse.status).toBe(502);

      const models = await client.request({
        path: "/aiserver.v1.AiService/AvailableModels",
        headers: protoHeaders,
        body: new Uint8Array(),
      });
      expect(models.status).toBe(200);
      // The BYOK entries come from the configuration, not from the gateway.
      expect(modelIds(models.body, 2)).toEqual([
        "claude-4.5-sonnet",
        "gpt-5",
        "byok-gpt-5",
        "byok-claude",
      ]);
      expect(logs.some((line) => line.message.includes("without the BYOK models"))).toBe(false);
    } finally {
      client.close();
    }
    await expectNothingHeld(proxy);
  });

  it("a client that disconnects mid-stream cancels the stream it was reading, at Cursor and at the gateway", async () => {
    const { proxy, proxyCa, cursor, gateway } = await start();
    cursor.server.script = { frames: 100_000, intervalMs: 5, frameBytes: 100 };
    gateway.server.script = { frames: 100_000, intervalMs: 5, frameBytes: 100 };
    for (const [model, server] of [
      ["gpt-5", cursor.server],
      ["byok-gpt-5", gateway.server],
    ] as const) {
      const requestId = `cut-${protocol}-${model}`;
      const appender = await cursorClient({
        protocol,
        proxyPort: proxy.port,
        ca: [proxyCa.certPem],
      });
      const append = await appender.request({
        path: "/aiserver.v1.BidiService/BidiAppend",
        headers: protoHeaders,
        body: runAppend({ requestId, model }),
      });
      appender.close();
      expect(append.status).toBe(200);
      const aborted = server.abortedStreams;
      if (protocol === "h2") {
        const session = await h2ThroughProxy({
          proxyPort: proxy.port,
          host: "api2.cursor.sh",
          ca: [proxyCa.certPem],
        });
        const stream = session.request({
          ":method": "POST",
          ":path": "/agent.v1.AgentService/RunSSE",
          ...protoHeaders,
        });
        stream.end(Buffer.from(bidiRequestId(requestId)));
        await new Promise((resolve) => stream.once("data", resolve));
        expect(server.openStreams).toBe(1);
        stream.close();
        await until(() => server.abortedStreams === aborted + 1 && server.openStreams === 0);
        session.destroy();
      } else {
        const socket = await tlsThroughProxy({
          proxyPort: proxy.port,
          host: "api2.cursor.sh",
          ca: [proxyCa.certPem],
          alpn: ["http/1.1"],
        });
        const body = Buffer.from(bidiRequestId(requestId));
        socket.write(
          `POST /agent.v1.AgentService/RunSSE HTTP/1.1\r\nhost: api2.cursor.sh\r\ncontent-type: application/proto\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        socket.write(body);
        await new Promise((resolve) => socket.once("data", resolve));
        expect(server.openStreams).toBe(1);
        socket.destroy();
        await until(() => server.abortedStreams === aborted + 1 && server.openStreams === 0);
      }
    }
    await expectNothingHeld(proxy);
  });

  it("Cursor breaking off mid-stream cuts the client's stream too (never a clean end)", async () => {
    const { proxy, proxyCa, cursor } = await start();
    cursor.server.script = { frames: 100_000, intervalMs: 5, frameBytes: 100 };
    const client = await cursorClient({ protocol, proxyPort: proxy.port, ca: [proxyCa.certPem] });
    await client.request({
      path: "/aiserver.v1.BidiService/BidiAppend",
      headers: protoHeaders,
      body: runAppend({ requestId: "broken", model: "gpt-5" }),
    });
    const stream = client.request({
      path: "/agent.v1.AgentService/RunSSE",
      headers: protoHeaders,
      body: bidiRequestId("broken"),
    });
    await until(() => cursor.server.openStreams === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    cursor.dropConnections();
    await expect(stream).rejects.toThrow();
    client.close();
    await expectNothingHeld(proxy);
  });

  it("a held RunSSE whose client goes away is released without deciding its run", async () => {
    const { proxy, proxyCa, cursor } = await start();
    const socket = await tlsThroughProxy({
      proxyPort: proxy.port,
      host: "api2.cursor.sh",
      ca: [proxyCa.certPem],
      alpn: protocol === "h2" ? ["h2"] : ["http/1.1"],
    });
    if (protocol === "h2") {
      const { connect } = await import("node:http2");
      const session = connect("https://api2.cursor.sh", { createConnection: () => socket });
      const stream = session.request({
        ":method": "POST",
        ":path": "/agent.v1.AgentService/RunSSE",
        "content-type": "application/proto",
      });
      stream.end(Buffer.from(bidiRequestId("held-gone")));
      await until(() => proxy.stats().held === 1);
      stream.close();
      await until(() => proxy.stats().held === 0);
      session.destroy();
    } else {
      const body = Buffer.from(bidiRequestId("held-gone"));
      socket.write(
        `POST /agent.v1.AgentService/RunSSE HTTP/1.1\r\nhost: api2.cursor.sh\r\ncontent-type: application/proto\r\ncontent-length: ${body.length}\r\n\r\n`,
      );
      socket.write(body);
      await until(() => proxy.stats().held === 1);
      socket.destroy();
      await until(() => proxy.stats().held === 0);
    }
    expect(cursor.server.requests.some((request) => request.body.includes("held-gone"))).toBe(
      false,
    );
    await expectNothingHeld(proxy);
  });
});

describe("limits", () => {
  it("a RunSSE with no run request in time goes to Cursor (the IDE's account answers it)", async () => {
    const { proxy, proxyCa, cursor, logs } = await start({ proxy: { holdTimeoutMs: 200 } });
    cursor.server.script = { frames: 1, intervalMs: 1, frameBytes: 10 };
    const client = await cursorClient({
      protocol: "h1",
      proxyPort: proxy.port,
      ca: [proxyCa.certPem],
    });
    try {
      const answer = await client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: protoHeaders,
        body: bidiRequestId("lonely"),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.includes("cursor:lonely:0")).toBe(true);
      expect(proxy.stats().requests.runsTimedOut).toBe(1);
      expect(logs.some((line) => line.message.includes("no run request arrived in time"))).toBe(
        true,
      );
    } finally {
      client.close();
    }
  });

  it("a slow reader holds the relay back (backpressure), so the proxy's memory stays bounded", async () => {
    const { proxy, proxyCa, cursor } = await start();
    for (const protocol of ["h1", "h2"] as const) {
      cursor.server.endlessBytes = 0;
      const socket = await tlsThroughProxy({
        proxyPort: proxy.port,
        host: "api2.cursor.sh",
        ca: [proxyCa.certPem],
        alpn: protocol === "h2" ? ["h2"] : ["http/1.1"],
      });
      let release: () => void = () => undefined;
      if (protocol === "h2") {
        const { connect } = await import("node:http2");
        const session = connect("https://api2.cursor.sh", { createConnection: () => socket });
        const stream = session.request({ ":method": "GET", ":path": "/test/endless-stream" });
        stream.end();
        stream.pause();
        release = () => {
          session.destroy();
          socket.destroy();
        };
      } else {
        socket.write("GET /test/endless-stream HTTP/1.1\r\nhost: api2.cursor.sh\r\n\r\n");
        socket.pause();
        release = () => socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const heldBack = cursor.server.endlessBytes;
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The stream stalled: a few socket buffers and flow-control windows, not the ~GB per
      // second a loopback stream runs at when nothing holds it back.
      expect(cursor.server.endlessBytes - heldBack).toBeLessThan(1024 * 1024);
      expect(heldBack).toBeLessThan(32 * 1024 * 1024);
      release();
      await until(() => cursor.server.openStreams === 0);
    }
    await expectNothingHeld(proxy);
  });

  it("200 concurrent tunnels and 100 concurrent intercepted streams: all complete, none left open, memory bounded", async () => {
    const { proxy, proxyCa, cursor } = await start();
    const echo = createServer((socket: Socket) => {
      socket.on("error", () => undefined);
      socket.pipe(socket);
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    const { port } = echo.address() as AddressInfo;
    const heapBefore = process.memoryUsage().heapUsed;
    try {
      const tunnels = await Promise.all(
        Array.from({ length: 200 }, async () => {
          const { status, socket } = await connectThroughProxy({
            proxyPort: proxy.port,
            authority: `127.0.0.1:${port}`,
          });
          expect(status).toBe(200);
          const payload = randomBytes(64 * 1024);
          const received: Buffer[] = [];
          socket.on("data", (chunk: Buffer) => received.push(chunk));
          socket.write(payload);
          await until(() => Buffer.concat(received).length >= payload.length, 20_000);
          expect(Buffer.concat(received).equals(payload)).toBe(true);
          return socket;
        }),
      );
      expect(proxy.stats().tunnels.open).toBe(200);
      for (const socket of tunnels) socket.end();

      cursor.server.script = { frames: 20, intervalMs: 5, frameBytes: 1024 };
      const clients = await Promise.all(
        Array.from({ length: 100 }, () =>
          cursorClient({ protocol: "h1", proxyPort: proxy.port, ca: [proxyCa.certPem] }),
        ),
      );
      const answers = await Promise.all(
        clients.map(async (client, index) => {
          await client.request({
            path: "/aiserver.v1.BidiService/BidiAppend",
            headers: protoHeaders,
            body: runAppend({ requestId: `many-${index}`, model: "gpt-5" }),
          });
          return client.request({
            path: "/agent.v1.AgentService/RunSSE",
            headers: protoHeaders,
            body: bidiRequestId(`many-${index}`),
          });
        }),
      );
      for (const [index, answer] of answers.entries()) {
        expect(answer.status).toBe(200);
        expect(answer.body.includes(`cursor:many-${index}:19`)).toBe(true);
      }
      for (const client of clients) client.close();
      await expectNothingHeld(proxy);
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      expect(heapGrowth).toBeLessThan(96 * 1024 * 1024);
      expect(proxy.stats().tunnels.total).toBe(200);
      expect(proxy.stats().bytes.tunnel.sent).toBe(200 * 64 * 1024);
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});
