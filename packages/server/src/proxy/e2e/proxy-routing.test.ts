import { randomBytes } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTlsServer } from "node:tls";
import type { AddressInfo } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateProxyCa } from "../proxy-ca.js";
import {
  bidiAppend,
  bidiRequestId,
  envelope,
  heartbeatMessage,
  modelIds,
  runRequestMessage,
  topLevelFields,
} from "./cursor-messages.js";
import { connectThroughProxy, tlsThroughProxy } from "./proxy-client.js";
import { byokModels, startProxyFixture } from "./proxy-fixture.js";
import type { ProxyFixture } from "./proxy-fixture.js";
import { cursorClient, ideHeaders, until } from "./test-clients.js";
import type { ClientProtocol, CursorClient } from "./test-clients.js";

const protoHeaders = { ...ideHeaders, "content-type": "application/proto" };
const runSseHeaders = { ...ideHeaders, "content-type": "application/connect+proto" };

function runAppend({ requestId, model }: { requestId: string; model: string }): Uint8Array {
  return bidiAppend({
    requestId,
    seqno: 0,
    message: runRequestMessage({
      conversationId: `conv-${requestId}`,
      model: { requestedModel: model },
    }),
  });
}

/** Splits a RunSSE body into its Connect frames' payloads (text), checking the framing. */
function framePayloads(body: Buffer): { flags: number; text: string }[] {
  const frames: { flags: number; text: string }[] = [];
  let offset = 0;
  while (offset < body.length) {
    const length = body.readUInt32BE(offset + 1);
    frames.push({
      flags: body[offset]!,
      text: body.subarray(offset + 5, offset + 5 + length).toString("utf8"),
    });
    offset += 5 + length;
  }
  expect(offset).toBe(body.length);
  return frames;
}

const combinations: { client: ClientProtocol; http1Only: boolean }[] = [
  { client: "h1", http1Only: false },
  { client: "h2", http1Only: false },
  { client: "h1", http1Only: true },
  { client: "h2", http1Only: true },
];

describe.each(combinations)(
  "client $client, Cursor stand-in HTTP/1.1 only: $http1Only",
  ({ client: protocol, http1Only }) => {
    let fixture: ProxyFixture;
    let client: CursorClient;

    beforeAll(async () => {
      fixture = await startProxyFixture({ http1Only });
      // The client trusts only the proxy's generated CA, as the IDE does once it is set up.
      client = await cursorClient({
        protocol,
        proxyPort: fixture.proxy.port,
        ca: [fixture.proxyCa.certPem],
      });
    });
    afterAll(async () => {
      client.close();
      await fixture.close();
    });

    it("a BYOK run (RunSSE first) is held until its first append, then served by the gateway and streamed back", async () => {
      fixture.gateway.server.script = { frames: 8, intervalMs: 25, frameBytes: 200 };
      const requestId = `byok-${protocol}-${http1Only}`;
      const runSseBody = envelope(bidiRequestId(requestId));
      const stream = client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: runSseHeaders,
        body: runSseBody,
      });
      await until(() => fixture.proxy.stats().held === 1);
      const appends = [
        runAppend({ requestId, model: "byok-gpt-5" }),
        bidiAppend({ requestId, seqno: 1, message: heartbeatMessage() }),
      ];
      for (const body of appends) {
        const answer = await client.request({
          path: "/aiserver.v1.BidiService/BidiAppend",
          headers: protoHeaders,
          body,
        });
        expect(answer.status).toBe(200);
        expect(answer.headers["content-type"]).toBe("application/proto");
        expect(answer.body.length).toBe(0);
      }
      const answer = await stream;
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("text/event-stream");
      const sent = fixture.gateway.server.responses.find(
        (response) =>
          response.path === "/agent.v1.AgentService/RunSSE" && response.body.includes(requestId),
      );
      expect(sent).toBeDefined();
      expect(answer.body.equals(sent!.body)).toBe(true);
      const frames = framePayloads(answer.body);
      expect(frames).toHaveLength(9);
      expect(frames[0]!.text.startsWith(`gateway:${requestId}:0:`)).toBe(true);
      expect(frames[8]).toEqual({ flags: 2, text: "{}" });
      // Streamed, not buffered: the first frame arrived long before the last.
      expect(answer.firstByteMs).toBeLessThan(answer.totalMs - 100);

      const atGateway = fixture.gateway.server.requests.filter(
        (request) => request.body.includes(requestId) || request.path.endsWith("RunSSE"),
      );
      const runSse = atGateway.find(
        (request) =>
          request.path === "/agent.v1.AgentService/RunSSE" &&
          request.body.equals(Buffer.from(runSseBody)),
      );
      expect(runSse).toBeDefined();
      expect(runSse!.headers["content-type"]).toBe("application/connect+proto");
      for (const body of appends) {
        const received = fixture.gateway.server.requests.find((request) =>
          request.body.equals(Buffer.from(body)),
        );
        expect(received?.path).toBe("/aiserver.v1.BidiService/BidiAppend");
        expect(received?.headers.authorization).toBeUndefined();
        expect(received?.headers["x-cursor-client-version"]).toBe("2.1.0");
      }
      // Nothing of this run went to Cursor.
      expect(
        fixture.cursor.server.requests.some((request) => request.body.includes(requestId)),
      ).toBe(false);
    });

    it("a BYOK run whose first append comes before its RunSSE goes to the gateway as a whole", async () => {
      fixture.gateway.server.script = { frames: 3, intervalMs: 5, frameBytes: 32 };
      const requestId = `byok-late-sse-${protocol}-${http1Only}`;
      const append = await client.request({
        path: "/aiserver.v1.BidiService/BidiAppend",
        headers: protoHeaders,
        body: runAppend({ requestId, model: "byok-claude" }),
      });
      expect(append.status).toBe(200);
      const answer = await client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: runSseHeaders,
        body: bidiRequestId(requestId),
      });
      expect(framePayloads(answer.body)[0]!.text.startsWith(`gateway:${requestId}:0`)).toBe(true);
      expect(
        fixture.cursor.server.requests.some((request) => request.body.includes(requestId)),
      ).toBe(false);
    });

    it("a run for a Cursor model reaches Cursor unchanged: request and answer bytes, headers, authority", async () => {
      fixture.cursor.server.script = { frames: 6, intervalMs: 10, frameBytes: 300 };
      const requestId = `cursor-${protocol}-${http1Only}`;
      const runSseBody = envelope(bidiRequestId(requestId));
      const stream = client.request({
        path: "/agent.v1.AgentService/RunSSE",
        headers: runSseHeaders,
        body: runSseBody,
      });
      await until(() => fixture.proxy.stats().held === 1);
      const appendBody = runAppend({ requestId, model: "gpt-5" });
      const append = await client.request({
        path: "/aiserver.v1.BidiService/BidiAppend",
        headers: protoHeaders,
        body: appendBody,
      });
      expect(append.status).toBe(200);
      const answer = await stream;

      const sent = fixture.cursor.server.responses.find(
        (response) =>
          response.path === "/agent.v1.AgentService/RunSSE" && response.body.includes(requestId),
      );
      expect(answer.body.equals(sent!.body)).toBe(true);
      const runSse = fixture.cursor.server.requests.find((request) =>
        request.body.equals(Buffer.from(runSseBody)),
      );
      const appendAtCursor = fixture.cursor.server.requests.find((request) =>
        request.body.equals(Buffer.from(appendBody)),
      );
      for (const received of [runSse, appendAtCursor]) {
        expect(received).toBeDefined();
        // The IDE's own session goes to Cursor: its account keeps working for Cursor's models.
        expect(received!.headers.authorization).toBe(ideHeaders.authorization);
        expect(received!.headers["x-request-id"]).toBe("ide-request-1");
        // As the client addressed it (Node's HTTP/2 client writes the default port).
        expect(received!.authority).toBe(
          protocol === "h2" ? "api2.cursor.sh:443" : "api2.cursor.sh",
        );
      }
      expect(
        fixture.gateway.server.requests.some((request) => request.body.includes(requestId)),
      ).toBe(false);
    });

    it("an unrelated route reaches Cursor unchanged, and Cursor's answer comes back unchanged", async () => {
      const body = randomBytes(200_000);
      const answer = await client.request({
        path: "/aiserver.v1.AiService/NameAgent?source=ide",
        headers: { ...protoHeaders, "x-extra": "kept" },
        body,
      });
      expect(answer.status).toBe(200);
      const received = fixture.cursor.server.requests.find(
        (request) =>
          request.path === "/aiserver.v1.AiService/NameAgent?source=ide" &&
          request.body.equals(body),
      );
      expect(received).toBeDefined();
      expect(received!.headers["x-extra"]).toBe("kept");
      expect(received!.headers.authorization).toBe(ideHeaders.authorization);
      expect(received!.method).toBe("POST");
      const sent = fixture.cursor.server.responses.find(
        (response) => response.path === "/aiserver.v1.AiService/NameAgent?source=ide",
      );
      expect(answer.body.equals(sent!.body)).toBe(true);
      expect(answer.headers["x-stand-in"]).toBe("cursor");
      expect(answer.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
      expect(answer.headers["content-length"]).toBe(String(sent!.body.length));

      const get = await client.request({
        method: "GET",
        path: "/auth/full_stripe_profile",
        headers: ideHeaders,
      });
      expect(JSON.parse(get.body.toString("utf8"))).toMatchObject({
        server: "cursor",
        method: "GET",
        bodyLength: 0,
      });
    });

    it("the model list is Cursor's with the BYOK models added", async () => {
      const available = await client.request({
        path: "/aiserver.v1.AiService/AvailableModels",
        headers: protoHeaders,
        body: new Uint8Array([0x28, 0x01]),
      });
      expect(available.status).toBe(200);
      expect(modelIds(available.body, 2)).toEqual([
        "claude-4.5-sonnet",
        "gpt-5",
        ...byokModels.map((model) => model.id),
      ]);
      // Cursor's top-level settings stay Cursor's (use_model_parameters = true).
      expect(topLevelFields(available.body).filter(([no]) => no === 11)).toEqual([[11, 1n]]);
      expect(available.headers["content-length"]).toBe(String(available.body.length));
      // Cursor got the IDE's request with its session; the BYOK entries come from the
      // configured models (the wire's encoders), so the gateway is not asked.
      const atCursor = fixture.cursor.server.requests.filter((request) =>
        request.path.endsWith("/AvailableModels"),
      );
      expect(atCursor.at(-1)!.headers.authorization).toBe(ideHeaders.authorization);
      expect(atCursor.at(-1)!.body).toEqual(Buffer.from([0x28, 0x01]));
      expect(
        fixture.gateway.server.requests.filter((request) => request.path.endsWith("Models")),
      ).toEqual([]);

      for (const path of [
        "/agent.v1.AgentService/GetUsableModels",
        "/aiserver.v1.AiService/GetUsableModels",
      ]) {
        const usable = await client.request({
          path,
          headers: protoHeaders,
          body: new Uint8Array(),
        });
        expect(modelIds(usable.body, 1)).toEqual([
          "claude-4.5-sonnet",
          "gpt-5",
          "byok-gpt-5",
          "byok-claude",
        ]);
      }
    });

    it.runIf(protocol === "h2" && !http1Only)("HTTP/2 trailers come back unchanged", async () => {
      const answer = await client.request({
        path: "/test/trailers",
        headers: { ...ideHeaders, te: "trailers" },
        body: new Uint8Array([1]),
      });
      expect(answer.body.toString()).toBe("trailered");
      expect(answer.trailers["grpc-status"]).toBe("0");
      expect(answer.trailers["grpc-message"]).toBe("ok");
    });
  },
);

describe("hosts and requests the proxy does not look into", () => {
  let fixture: ProxyFixture;
  beforeAll(async () => {
    fixture = await startProxyFixture({ gzipModelList: true });
  });
  afterAll(async () => {
    await fixture.close();
  });

  it("decodes a gzip model list from Cursor and answers it merged, uncompressed", async () => {
    const client = await cursorClient({
      protocol: "h1",
      proxyPort: fixture.proxy.port,
      ca: [fixture.proxyCa.certPem],
    });
    try {
      const answer = await client.request({
        path: "/aiserver.v1.AiService/AvailableModels",
        headers: { ...protoHeaders, "accept-encoding": "gzip" },
        body: new Uint8Array(),
      });
      expect(answer.headers["content-encoding"]).toBeUndefined();
      expect(modelIds(answer.body, 2)).toEqual([
        "claude-4.5-sonnet",
        "gpt-5",
        "byok-gpt-5",
        "byok-claude",
      ]);
    } finally {
      client.close();
    }
  });

  it("tunnels a host that is not Cursor's byte for byte, without terminating its TLS", async () => {
    // A TLS server with a certificate from a CA the proxy has never seen.
    const otherCa = await loadOrCreateProxyCa({ folder: `${fixture.dataDir}/other-ca` });
    const issued = await otherCa.issue({ hosts: ["127.0.0.1"] });
    const received: Buffer[] = [];
    const server = createTlsServer({ cert: issued.certPem, key: issued.keyPem }, (socket) => {
      socket.on("data", (chunk: Buffer) => {
        received.push(chunk);
        socket.write(chunk);
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const before = fixture.proxy.stats();
      const answer = await connectThroughProxy({
        proxyPort: fixture.proxy.port,
        authority: `127.0.0.1:${port}`,
      });
      expect(answer.status).toBe(200);
      const socket = tlsConnect({
        socket: answer.socket,
        servername: "127.0.0.1",
        ca: [otherCa.certPem],
      });
      await new Promise<void>((resolve, reject) => {
        socket.once("secureConnect", resolve);
        socket.once("error", reject);
      });
      // The certificate the client sees is the server's own, not one minted by the proxy.
      expect(socket.getPeerCertificate().fingerprint256).toBe(
        new (await import("node:crypto")).X509Certificate(issued.certPem).fingerprint256,
      );
      const payload = randomBytes(100_000);
      const echoed: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => echoed.push(chunk));
      socket.write(payload);
      await until(() => Buffer.concat(echoed).length >= payload.length);
      expect(Buffer.concat(echoed).equals(payload)).toBe(true);
      expect(Buffer.concat(received).equals(payload)).toBe(true);
      socket.destroy();
      expect(fixture.proxy.stats().tunnels.total).toBe(before.tunnels.total + 1);
      expect(fixture.proxy.stats().intercepted.total).toBe(before.intercepted.total);
      await until(() => fixture.proxy.stats().tunnels.open === 0);
      // The raw TLS records went through: more bytes than the payload, in both directions.
      const after = fixture.proxy.stats().bytes.tunnel;
      expect(after.sent - before.bytes.tunnel.sent).toBeGreaterThan(payload.length);
      expect(after.received - before.bytes.tunnel.received).toBeGreaterThan(payload.length);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("a client that does not trust the proxy CA cannot talk to Cursor's hosts through it", async () => {
    const foreignCa = await loadOrCreateProxyCa({ folder: `${fixture.dataDir}/foreign-ca` });
    await expect(
      tlsThroughProxy({
        proxyPort: fixture.proxy.port,
        host: "api3.cursor.sh",
        ca: [foreignCa.certPem],
        alpn: ["http/1.1"],
      }),
    ).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" });
  });

  it("forwards an absolute-form http:// request to its host as it is", async () => {
    const server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        res.writeHead(201, {
          "x-path": req.url ?? "",
          "x-host": req.headers.host ?? "",
          "x-proxy-connection": String(req.headers["proxy-connection"]),
        });
        res.end(Buffer.concat(chunks));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const answer = await fetch(`http://127.0.0.1:${fixture.proxy.port}/`, { method: "GET" });
      expect(answer.status).toBe(404);
      const { request } = await import("node:http");
      const forwarded = await new Promise<{
        status: number;
        headers: Record<string, unknown>;
        body: string;
      }>((resolve, reject) => {
        const req = request({
          host: "127.0.0.1",
          port: fixture.proxy.port,
          method: "POST",
          path: `http://127.0.0.1:${port}/plain?q=1`,
          headers: { "proxy-connection": "keep-alive", host: `127.0.0.1:${port}` },
        });
        req.on("response", (res) => {
          let body = "";
          res.on("data", (chunk: Buffer) => (body += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        });
        req.on("error", reject);
        req.end("plain body");
      });
      expect(forwarded).toMatchObject({
        status: 201,
        body: "plain body",
        headers: {
          "x-path": "/plain?q=1",
          "x-host": `127.0.0.1:${port}`,
          "x-proxy-connection": "undefined",
        },
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("answers doctor's status request with the CA, the gateway and the BYOK models, and refuses browsers", async () => {
    const status = await fetch(`${fixture.proxy.url}/_cursor-gateway/status`);
    expect(status.status).toBe(200);
    const body = (await status.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      service: "cursor-gateway-proxy",
      proxyURL: fixture.proxy.url,
      caCertPath: fixture.proxyCa.certPath,
      caFingerprint256: fixture.proxyCa.fingerprint256,
      gatewayURL: fixture.gateway.origin,
      models: byokModels.map(({ id, displayName, provider }) => ({ id, displayName, provider })),
    });
    expect(JSON.stringify(body)).not.toContain("BEGIN PRIVATE KEY");
    const fromPage = await fetch(`${fixture.proxy.url}/_cursor-gateway/status`, {
      headers: { origin: "https://evil.example" },
    });
    expect(fromPage.status).toBe(403);
  });

  it("refuses a malformed CONNECT target", async () => {
    const answer = await connectThroughProxy({
      proxyPort: fixture.proxy.port,
      authority: "no-port-here",
    });
    expect(answer.status).toBe(400);
    expect(answer.head).toContain("bad CONNECT target");
  });
});
