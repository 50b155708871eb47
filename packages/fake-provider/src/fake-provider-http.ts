import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonAnswer, JsonRecord, SseFrame } from "./wire-api.js";

// The HTTP side of the fake provider: reading bodies, answering JSON, and streaming SSE with the
// `slow` and `cut` behaviours.

const secretHeaders = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "cookie",
  "set-cookie",
]);
const maxBodyBytes = 64 * 1024 * 1024;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Request headers minus secrets (keys, authorization, cookies). */
export function publicHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || secretHeaders.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The whole body, or undefined when it exceeds the limit. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBodyBytes) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, answer: JsonAnswer): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

/** Sends headers and half of the body, then drops the connection (a `cut` non-streaming answer). */
export function sendTruncatedJson(res: ServerResponse, answer: JsonAnswer): void {
  const bytes = Buffer.from(JSON.stringify(answer.body));
  res.writeHead(answer.status, {
    "content-type": "application/json",
    "content-length": bytes.length,
    ...answer.headers,
  });
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.destroy());
}

/** Waits `ms`, or less when the client goes away. */
export function sleep(ms: number, res: ServerResponse): Promise<void> {
  if (ms <= 0 || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    }
    res.once("close", done);
  });
}

function formatFrame(frame: SseFrame): string {
  return `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`;
}

/** Streams SSE frames; `cutAfterEvents` drops the connection, `delayMsPerEvent` slows it. */
export async function sendStream({
  res,
  frames,
  headers,
  cutAfterEvents,
  delayMsPerEvent,
}: {
  res: ServerResponse;
  frames: readonly SseFrame[];
  headers: Record<string, string>;
  cutAfterEvents: number | undefined;
  delayMsPerEvent: number;
}): Promise<void> {
  // No `connection` header of our own: Node then adds `Keep-Alive: timeout=<s>` as on every
  // other answer, and fetch pools the connection as long as the server keeps it (without the
  // hint it assumes 4 s, and the two sides disagree about when an idle connection is gone).
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    ...headers,
  });
  res.flushHeaders();
  const limit = cutAfterEvents ?? frames.length;
  for (const [index, frame] of frames.entries()) {
    if (res.destroyed) return;
    if (index >= limit) break;
    await sleep(delayMsPerEvent, res);
    if (res.destroyed) return;
    res.write(formatFrame(frame));
  }
  if (cutAfterEvents !== undefined && cutAfterEvents < frames.length) {
    // Let the written events reach the client before the connection drops mid-stream.
    await new Promise<void>((resolve) => res.write("", () => resolve()));
    res.destroy();
    return;
  }
  res.end();
}
