import type { ServerResponse } from "node:http";

/**
 * Writes `event: <name>` + `data: <json>` frames to one response (docs/http-contract.md). With
 * `heartbeatMs`, a comment line (`: keep-alive`, which SSE clients ignore) goes out whenever
 * nothing else did for that long: a model thinking for minutes never leaves the connection idle,
 * so the gateway's idle timeout (and any proxy's) never cuts a live stream.
 */
export class SseStream {
  readonly #response: ServerResponse;
  #ended = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #wrote = false;
  #corked = false;
  /** Which cork the pending end-of-tick uncork belongs to. */
  #cork = 0;

  constructor(response: ServerResponse, { heartbeatMs }: { heartbeatMs?: number } = {}) {
    this.#response = response;
    if (heartbeatMs !== undefined && heartbeatMs > 0) {
      this.#heartbeat = setInterval(() => {
        if (!this.connected) return;
        if (!this.#wrote) this.#response.write(": keep-alive\n\n");
        this.#wrote = false;
      }, heartbeatMs);
      this.#heartbeat.unref();
      response.once("close", () => clearInterval(this.#heartbeat));
    }
    // The head leaves with the first events (`run.started` comes at once), in the same write.
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
  }

  /** False once the client went away; the run goes on and commits, a retry then replays it. */
  get connected(): boolean {
    return !this.#ended && !this.#response.destroyed && this.#response.writable;
  }

  send(event: string, data: unknown): void {
    if (!this.connected) return;
    this.#wrote = true;
    // Events produced in one go (a provider chunk's deltas, the run's closing events) leave in
    // one write instead of a syscall each: corked until the I/O the event loop is handling now
    // is done (`setImmediate`). That batches a little more than the end of the tick would, and
    // lets the run's provider request, written on the next tick, leave before the response's
    // head and `run.started`: the client's first bytes wait a fraction of a millisecond, the
    // provider's request does not wait for them.
    if (!this.#corked) {
      this.#corked = true;
      this.#response.cork();
      const cork = ++this.#cork;
      setImmediate(() => {
        // A flush since then uncorked this one already (and a later send may have corked anew).
        if (cork === this.#cork) this.flush();
      });
    }
    this.#response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /**
   * Sends what is corked now. The run calls it before blocking work (a store write, encoding a
   * checkpoint) so events already produced, such as a short answer's text, reach the client
   * first instead of at the end of the tick.
   */
  flush(): void {
    if (!this.#corked || this.#ended) return;
    this.#corked = false;
    this.#cork += 1;
    this.#response.uncork();
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#heartbeat);
    if (!this.#response.destroyed) this.#response.end();
  }
}
