import type { ServerResponse } from "node:http";

/** Writes `event: <name>` + `data: <json>` frames to one response (docs/http-contract.md). */
export class SseStream {
  readonly #response: ServerResponse;
  #ended = false;

  constructor(response: ServerResponse) {
    this.#response = response;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    response.flushHeaders();
  }

  /** False once the client went away; the run goes on and commits, a retry then replays it. */
  get connected(): boolean {
    return !this.#ended && !this.#response.destroyed && this.#response.writable;
  }

  send(event: string, data: unknown): void {
    if (!this.connected) return;
    this.#response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#response.destroyed) this.#response.end();
  }
}
