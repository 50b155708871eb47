/** One SSE event of a run, as the gateway sent it. */
export interface RunEvent {
  readonly event: string;
  readonly data: unknown;
}

export interface RunResponse {
  readonly status: number;
  /** SSE events when the run streamed (status 200), in order; those received before a break. */
  readonly events: readonly RunEvent[];
  /** The JSON error of a request rejected before streaming (`body.error`). */
  readonly error?: { readonly code: string; readonly message: string; readonly issues?: unknown };
  /** The whole JSON body of a rejected request. */
  readonly body?: unknown;
  /**
   * True when the stream broke before it ended (the gateway went away, the connection dropped)
   * or `signal` aborted it while it was read: `events` holds what arrived until then.
   */
  readonly disconnected: boolean;
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  /**
   * Called for every event as it arrives, before the next one is read (awaited when it returns
   * a promise): a client can act at a precise point of the stream.
   */
  readonly onEvent?: (event: RunEvent, index: number) => void | Promise<void>;
}

/** One `event:` + `data:` frame (without its blank line); undefined for a frame without data. */
function parseFrame(frame: string): RunEvent | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length === 0 ? undefined : { event, data: JSON.parse(data.join("\n")) as unknown };
}

/** Parses a complete `text/event-stream` body into events (`event:` + `data:` frames). */
export function parseSseEvents(text: string): RunEvent[] {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n\n")
    .flatMap((frame) => {
      const event = parseFrame(frame);
      return event === undefined ? [] : [event];
    });
}

/**
 * Reads a `text/event-stream` body incrementally: yields each event as soon as its frame is
 * complete. A stream that breaks rejects the iteration after the events that arrived.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<RunEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  // A `\r` at the end of a chunk may be the first half of a `\r\n`: kept until the next one.
  let pending = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = pending + decoder.decode(value, { stream: !done });
      const keep = !done && text.endsWith("\r") ? 1 : 0;
      pending = text.slice(text.length - keep);
      buffered += text.slice(0, text.length - keep).replace(/\r\n?/g, "\n");
      let boundary = buffered.indexOf("\n\n");
      while (boundary !== -1) {
        const event = parseFrame(buffered.slice(0, boundary));
        buffered = buffered.slice(boundary + 2);
        if (event !== undefined) yield event;
        boundary = buffered.indexOf("\n\n");
      }
      if (done) break;
    }
    const last = parseFrame(buffered);
    if (last !== undefined) yield last;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * The client of the gateway's HTTP contract (docs/http-contract.md), used by the demo, the
 * `report` command, the end-to-end tests and the benchmark. `run` streams a `POST /v1/runs`;
 * `get` and `post` call the other endpoints and parse their JSON.
 */
export function createGatewayClient({ baseURL, token }: { baseURL: string; token?: string }) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...extra,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  });
  return {
    async run(body: unknown, { signal, onEvent }: RunOptions = {}): Promise<RunResponse> {
      const response = await fetch(`${baseURL}/v1/runs`, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      });
      if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
        const parsed = JSON.parse(await response.text()) as { error?: RunResponse["error"] };
        return {
          status: response.status,
          events: [],
          body: parsed,
          ...(parsed.error === undefined ? {} : { error: parsed.error }),
          disconnected: false,
        };
      }
      const events: RunEvent[] = [];
      try {
        for await (const event of readSseEvents(response.body!)) {
          events.push(event);
          await onEvent?.(event, events.length - 1);
          // An aborted request reads nothing more, even what already arrived.
          if (signal?.aborted) return { status: response.status, events, disconnected: true };
        }
      } catch {
        return { status: response.status, events, disconnected: true };
      }
      return { status: response.status, events, disconnected: false };
    },
    async get(path: string): Promise<{ status: number; body: unknown }> {
      const response = await fetch(`${baseURL}${path}`, { headers: headers() });
      return { status: response.status, body: (await response.json()) as unknown };
    },
    async post(path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
      const response = await fetch(`${baseURL}${path}`, {
        method: "POST",
        headers: headers(body === undefined ? {} : { "content-type": "application/json" }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    },
  };
}

export type GatewayClient = ReturnType<typeof createGatewayClient>;
