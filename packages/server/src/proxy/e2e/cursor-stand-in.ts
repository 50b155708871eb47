import { createHash } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import { createSecureServer } from "node:http2";
import { createServer as createHttpsServer } from "node:https";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import {
  availableModelsResponse,
  endStreamFrame,
  envelope,
  usableModelsResponse,
} from "./cursor-messages.js";

/** One request as a server received it. */
export interface ReceivedRequest {
  readonly protocol: "h1" | "h2";
  readonly method: string;
  readonly path: string;
  readonly authority: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** What a server sent back, byte for byte (for comparisons with what the client received). */
export interface SentResponse {
  readonly path: string;
  readonly status: number;
  readonly body: Buffer;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

function readAll(req: AnyRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** `BidiRequestId.request_id` of a raw or enveloped RunSSE body (the stand-ins' own reader). */
export function requestIdOf(body: Buffer): string {
  const message = body[0] === 0 ? body.subarray(5) : body;
  const reader = new BinaryReader(message);
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo === 1) return reader.string();
    reader.skip(wireType, fieldNo);
  }
  return "";
}

export interface StreamScript {
  /** Frames per RunSSE answer. */
  readonly frames: number;
  /** Delay between frames. */
  readonly intervalMs: number;
  /** Bytes of each frame's payload. */
  readonly frameBytes: number;
}

/** A server that records what it got and answers the agent routes; shared by both stand-ins. */
class RecordingServer {
  readonly requests: ReceivedRequest[] = [];
  readonly responses: SentResponse[] = [];
  /** Streams that the client broke off before their end. */
  abortedStreams = 0;
  openStreams = 0;
  /** Bytes the endless stream has handed to its connection so far. */
  endlessBytes = 0;
  readonly sockets = new Set<Socket>();
  script: StreamScript = { frames: 5, intervalMs: 5, frameBytes: 64 };

  constructor(readonly name: string) {}

  async handle(
    req: AnyRequest,
    res: AnyResponse,
    extra: (path: string, body: Buffer, res: AnyResponse) => boolean,
  ) {
    const body = await readAll(req);
    const h2 = "stream" in req;
    const path = req.url ?? "/";
    this.requests.push({
      protocol: h2 ? "h2" : "h1",
      method: req.method ?? "",
      path,
      authority: String(h2 ? req.headers[":authority"] : req.headers.host),
      headers: req.headers,
      body,
    });
    if (path === "/agent.v1.AgentService/RunSSE") return this.#runSse({ body, res });
    if (path === "/aiserver.v1.BidiService/BidiAppend") {
      return this.#send({
        res,
        path,
        status: 200,
        headers: { "content-type": "application/proto" },
        body: Buffer.alloc(0),
      });
    }
    if (extra(path, body, res)) return;
    if (path === "/test/endless-stream") return this.#endless({ res, path });
    // Any other route: a body derived from the request, so a changed request shows.
    const answer = Buffer.from(
      JSON.stringify({
        server: this.name,
        path,
        method: req.method,
        bodySha256: createHash("sha256").update(body).digest("hex"),
        bodyLength: body.length,
      }),
    );
    return this.#send({
      res,
      path,
      status: 200,
      headers: {
        "content-type": "application/json",
        "x-stand-in": this.name,
        "set-cookie": ["a=1", "b=2"],
      },
      body: answer,
    });
  }

  #send({
    res,
    path,
    status,
    headers,
    body,
  }: {
    res: AnyResponse;
    path: string;
    status: number;
    headers: Record<string, string | string[]>;
    body: Buffer;
  }) {
    this.responses.push({ path, status, body });
    res.writeHead(status, { ...headers, "content-length": String(body.length) });
    res.end(body);
  }

  #runSse({ body, res }: { body: Buffer; res: AnyResponse }) {
    const requestId = requestIdOf(body);
    const { frames, intervalMs, frameBytes } = this.script;
    const sent: Buffer[] = [];
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "connect-protocol-version": "1",
    });
    this.openStreams += 1;
    let index = 0;
    let finished = false;
    const timer = setInterval(() => {
      if (index < frames) {
        const text = `${this.name}:${requestId}:${index}:`;
        const payload = Buffer.alloc(Math.max(frameBytes, text.length), ".");
        payload.write(text);
        const frame = Buffer.from(envelope(payload));
        sent.push(frame);
        (res as NodeJS.WritableStream).write(frame);
        index += 1;
        return;
      }
      clearInterval(timer);
      const end = Buffer.from(endStreamFrame());
      sent.push(end);
      finished = true;
      this.openStreams -= 1;
      this.responses.push({
        path: "/agent.v1.AgentService/RunSSE",
        status: 200,
        body: Buffer.concat(sent),
      });
      res.end(end);
    }, intervalMs);
    res.once("close", () => {
      clearInterval(timer);
      if (!finished) {
        this.openStreams -= 1;
        this.abortedStreams += 1;
      }
    });
  }

  /**
   * Writes 64 KiB chunks as fast as the reader takes them (waiting for `drain`), until the
   * client goes away: what it managed to send shows whether the path in between holds back.
   */
  #endless({ res, path }: { res: AnyResponse; path: string }) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    this.openStreams += 1;
    const chunk = Buffer.alloc(64 * 1024, 7);
    const writable = res as NodeJS.WritableStream & { destroyed?: boolean };
    let open = true;
    const pump = () => {
      while (open && !writable.destroyed) {
        this.endlessBytes += chunk.length;
        if (!writable.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
    };
    pump();
    res.once("close", () => {
      open = false;
      this.openStreams -= 1;
      this.abortedStreams += 1;
      this.responses.push({ path, status: 200, body: Buffer.alloc(0) });
    });
  }
}

export interface RunningStandIn {
  readonly origin: string;
  readonly port: number;
  readonly server: RecordingServer;
  /** Cuts every open connection (a crash of the server mid-answer). */
  dropConnections(): void;
  close(): Promise<void>;
}

function listen(
  server: { listen(port: number, host: string, cb: () => void): unknown; address(): unknown },
  port = 0,
) {
  return new Promise<number>((resolve) => {
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * The stand-in for Cursor's HTTPS servers: a real TLS server (HTTP/2 with HTTP/1.1 fallback, or
 * HTTP/1.1 only) with a certificate from the test's own CA. Its model list holds Cursor's models.
 */
export async function startCursorStandIn({
  cert,
  key,
  http1Only = false,
  cursorModels = [
    { name: "claude-4.5-sonnet", displayName: "Sonnet 4.5" },
    { name: "gpt-5", displayName: "GPT-5" },
  ],
  gzipModelList = false,
  port = 0,
}: {
  cert: string;
  key: string;
  http1Only?: boolean;
  cursorModels?: readonly { name: string; displayName: string }[];
  gzipModelList?: boolean;
  port?: number;
}): Promise<RunningStandIn> {
  const recorder = new RecordingServer("cursor");
  const extra = (path: string, _body: Buffer, res: AnyResponse): boolean => {
    if (path === "/aiserver.v1.AiService/AvailableModels" || path.endsWith("/GetUsableModels")) {
      const plain = Buffer.from(
        path.endsWith("/AvailableModels")
          ? availableModelsResponse({ models: cursorModels, useModelParameters: true })
          : usableModelsResponse(
              cursorModels.map((model) => ({ id: model.name, displayName: model.displayName })),
            ),
      );
      const body = gzipModelList ? gzipSync(plain) : plain;
      recorder.responses.push({ path, status: 200, body });
      res.writeHead(200, {
        "content-type": "application/proto",
        "content-length": String(body.length),
        ...(gzipModelList ? { "content-encoding": "gzip" } : {}),
      });
      res.end(body);
      return true;
    }
    if (path === "/test/trailers" && "stream" in res) {
      res.writeHead(200, { "content-type": "application/grpc", trailer: "grpc-status" });
      res.addTrailers({ "grpc-status": "0", "grpc-message": "ok" });
      res.end(Buffer.from("trailered"));
      return true;
    }
    return false;
  };
  const handler = (req: AnyRequest, res: AnyResponse) => void recorder.handle(req, res, extra);
  const server = http1Only
    ? createHttpsServer({ cert, key }, handler)
    : createSecureServer({ cert, key, allowHTTP1: true }, handler);
  server.on("secureConnection", (socket: Socket) => {
    recorder.sockets.add(socket);
    socket.once("close", () => recorder.sockets.delete(socket));
  });
  const bound = await listen(server, port);
  return {
    origin: `https://127.0.0.1:${bound}`,
    port: bound,
    server: recorder,
    dropConnections: () => {
      for (const socket of recorder.sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of recorder.sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Stands in for the gateway for the proxy's routing tests: a real HTTP server answering RunSSE
 * with its own frames, so a test can tell where a run went. (The real gateway's wire routes run
 * in the proxy-command test.)
 */
export async function startWireRoutesStandIn(): Promise<RunningStandIn> {
  const recorder = new RecordingServer("gateway");
  const extra = (): boolean => false;
  const server = createHttpServer((req, res) => void recorder.handle(req, res, extra));
  server.on("connection", (socket: Socket) => {
    recorder.sockets.add(socket);
    socket.once("close", () => recorder.sockets.delete(socket));
  });
  const port = await listen(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    server: recorder,
    dropConnections: () => {
      for (const socket of recorder.sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of recorder.sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
