import { connect as http2Connect } from "node:http2";
import type { ClientHttp2Session } from "node:http2";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { defaultConnectionLimits } from "../http/connection-limits.js";
import type { RunningGateway } from "../start-gateway.js";
import { temporaryFolders } from "./e2e-environment.js";
import { userTurn } from "./e2e-helpers.js";
import { startInProcessGateway } from "./in-process-gateway.js";
import { startScriptedProvider } from "./scripted-provider.js";
import type { ScriptedProvider } from "./scripted-provider.js";
import { runEnded, streamRun } from "./sse-run.js";

const folders = temporaryFolders("connections");
afterAll(() => folders.removeAll());

let provider: ScriptedProvider;
let gateway: RunningGateway;
let port: number;
const open: Socket[] = [];

beforeAll(async () => {
  provider = await startScriptedProvider();
  gateway = await startInProcessGateway({
    provider,
    dataDir: folders.create(),
    extra: {
      CURSOR_GATEWAY_HEADERS_TIMEOUT_SECONDS: "1",
      CURSOR_GATEWAY_REQUEST_TIMEOUT_SECONDS: "2.5",
      CURSOR_GATEWAY_IDLE_TIMEOUT_SECONDS: "0.6",
      CURSOR_GATEWAY_MAX_CONNECTIONS_PER_CLIENT: "4",
    },
  });
  port = Number(new URL(gateway.url).port);
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await gateway.close();
  await provider.fake.close();
});

/** A raw connection to the gateway: what it was sent back and when it was closed. */
async function rawConnection(): Promise<{
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}> {
  const socket = connect({ host: "127.0.0.1", port });
  open.push(socket);
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const started = Date.now();
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(Date.now() - started)),
  );
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  return { socket, received: () => received, closed };
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const within = (promise: Promise<number>, ms: number) =>
  Promise.race([promise, new Promise<number>((resolve) => setTimeout(() => resolve(-1), ms))]);

describe("connections per client", () => {
  it("closes a client's connection beyond its cap at once; others and later ones are served", async () => {
    // Only raw connections here: a pooled keep-alive connection of fetch would count too.
    const held = await Promise.all([1, 2, 3, 4].map(() => rawConnection()));
    for (const connection of held) {
      connection.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const connection of held) expect(connection.received()).toMatch(/^HTTP\/1\.1 200/);
    const over = await rawConnection();
    over.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await within(over.closed, 1_000)).toBeGreaterThanOrEqual(0);
    expect(over.received()).toBe("");
    // A freed slot takes the next connection.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const later = await rawConnection();
    later.socket.write("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    await within(later.closed, 2_000);
    expect(later.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(later.received()).toMatch(
      /cursor_gateway_connections_rejected_total\{reason="per-client-limit"\} [1-9]/,
    );
    for (const connection of held) connection.socket.destroy();
  });
});

describe("h2c connections (the Cursor wire's HTTP/2, on the same port)", () => {
  /** An h2c session (HTTP/2 with prior knowledge) and when it was closed. */
  async function h2cSession(): Promise<{ session: ClientHttp2Session; closed: Promise<number> }> {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    session.on("error", () => undefined);
    const started = Date.now();
    const closed = new Promise<number>((resolve) =>
      session.once("close", () => resolve(Date.now() - started)),
    );
    await new Promise<void>((resolve, reject) => {
      session.once("connect", () => resolve());
      session.once("close", () => reject(new Error("the h2c session closed before it connected")));
    });
    return { session, closed };
  }

  const healthz = (session: ClientHttp2Session) =>
    new Promise<number>((resolve, reject) => {
      const stream = session.request({ ":path": "/healthz" });
      stream.on("response", (headers) => resolve(Number(headers[":status"])));
      stream.on("error", reject);
      session.once("close", () => reject(new Error("the h2c session closed")));
      stream.resume();
      stream.end();
    });

  it("count towards the per-client cap: one over it is closed at once", async () => {
    const held = await Promise.all([1, 2, 3, 4].map(() => h2cSession()));
    for (const { session } of held) expect(await healthz(session)).toBe(200);
    const over = http2Connect(`http://127.0.0.1:${port}`);
    over.on("error", () => undefined);
    const overClosed = new Promise<void>((resolve) => over.once("close", () => resolve()));
    let answered = false;
    const request = over.request({ ":path": "/healthz" });
    request.on("response", () => (answered = true));
    request.on("error", () => undefined);
    request.end();
    expect(
      await Promise.race([overClosed.then(() => true), sleepMs(1_000).then(() => false)]),
    ).toBe(true);
    expect(answered).toBe(false);
    for (const { session } of held) session.destroy();
    await Promise.all(held.map(({ closed }) => closed));
    // The gateway counts a connection until its side has closed too.
    await sleepMs(300);
  });

  it("a silent h2c connection is closed at the idle timeout", async () => {
    const { session, closed } = await h2cSession();
    expect(await healthz(session)).toBe(200);
    // Nothing more is sent: the connection is idle from the gateway's side too.
    const closedAfter = await within(closed, 5_000);
    expect(closedAfter).toBeGreaterThan(0);
    expect(closedAfter).toBeLessThan(2_500);
  });
});

describe("stalled and slow clients", () => {
  it("a request head that stalls is cut at the header timeout", async () => {
    const connection = await rawConnection();
    connection.socket.write("POST /v1/runs HTTP/1.1\r\nHost: x\r\n");
    // Bytes trickle in (so the idle timeout does not fire); the head never completes.
    const drip = setInterval(() => connection.socket.write("X-Slow: 1\r\n"), 200);
    const closedAfter = await within(connection.closed, 5_000);
    clearInterval(drip);
    expect(closedAfter).toBeGreaterThan(0);
    expect(closedAfter).toBeLessThan(3_500);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a body that stops arriving is cut at the idle timeout", async () => {
    const connection = await rawConnection();
    connection.socket.write(
      'POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"conversationId":',
    );
    const closedAfter = await within(connection.closed, 5_000);
    expect(closedAfter).toBeGreaterThan(0);
    expect(closedAfter).toBeLessThan(2_000);
  });

  it("a body dripping in is cut at the request timeout", async () => {
    const connection = await rawConnection();
    connection.socket.write(
      "POST /v1/runs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
    );
    const drip = setInterval(() => connection.socket.write(" "), 200);
    const closedAfter = await within(connection.closed, 6_000);
    clearInterval(drip);
    expect(closedAfter).toBeGreaterThan(2_000);
    expect(closedAfter).toBeLessThan(5_000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408/);
  });

  it("a stream that is silent longer than the idle timeout stays open (heartbeats)", async () => {
    // Every event of the provider's answer comes after a pause longer than the idle timeout.
    provider.reply = {
      type: "slow",
      delayMsPerEvent: 800,
      reply: { type: "text", text: "Slowly but surely.", chunks: 1 },
    };
    const result = await streamRun(
      gateway.url,
      userTurn({ conversationId: "slow-stream", turn: 1 }),
    );
    expect(result.disconnected).toBe(false);
    expect(runEnded(result.events)).toEqual({ reason: "completed" });
  });
});

describe("configuration", () => {
  it("has documented defaults and reads every variable, refusing nonsense", () => {
    const base = { CURSOR_GATEWAY_PROVIDER: "simulated" };
    expect(loadConfig(base).connections).toEqual(defaultConnectionLimits);
    expect(
      loadConfig({
        ...base,
        CURSOR_GATEWAY_HEADERS_TIMEOUT_SECONDS: "5",
        CURSOR_GATEWAY_REQUEST_TIMEOUT_SECONDS: "120",
        CURSOR_GATEWAY_IDLE_TIMEOUT_SECONDS: "0.5",
        CURSOR_GATEWAY_KEEP_ALIVE_TIMEOUT_SECONDS: "10",
        CURSOR_GATEWAY_MAX_CONNECTIONS_PER_CLIENT: "0",
      }).connections,
    ).toEqual({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 120_000,
      idleTimeoutMs: 500,
      keepAliveTimeoutMs: 10_000,
      maxConnectionsPerClient: 0,
      sseHeartbeatMs: 166,
    });
    for (const [name, value] of [
      ["CURSOR_GATEWAY_IDLE_TIMEOUT_SECONDS", "0"],
      ["CURSOR_GATEWAY_HEADERS_TIMEOUT_SECONDS", "ten"],
      ["CURSOR_GATEWAY_MAX_CONNECTIONS_PER_CLIENT", "-1"],
    ] as const) {
      expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
    }
  });
});
