/** One SSE event of a run, as the gateway sent it. */
export interface RunEvent {
  readonly event: string;
  readonly data: unknown;
}

export interface RunResponse {
  readonly status: number;
  /** SSE events when the run streamed (status 200), in order. */
  readonly events: readonly RunEvent[];
  /** The JSON error body when the request was rejected before streaming. */
  readonly error?: { readonly code: string; readonly message: string; readonly issues?: unknown };
}

/** Parses a complete `text/event-stream` body into events (`event:` + `data:` frames). */
export function parseSseEvents(text: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join("\n")) as unknown });
  }
  return events;
}

/** A minimal client of the gateway's HTTP contract, used by the demo, tests and benchmarks. */
export function createGatewayClient({ baseURL, token }: { baseURL: string; token?: string }) {
  const headers = (extra: Record<string, string> = {}) => ({
    ...extra,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  });
  return {
    async run(body: unknown, { signal }: { signal?: AbortSignal } = {}): Promise<RunResponse> {
      const response = await fetch(`${baseURL}/v1/runs`, {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify(body),
        ...(signal === undefined ? {} : { signal }),
      });
      const text = await response.text();
      if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
        return { status: response.status, events: parseSseEvents(text) };
      }
      const parsed = JSON.parse(text) as { error?: RunResponse["error"] };
      return {
        status: response.status,
        events: [],
        ...(parsed.error === undefined ? {} : { error: parsed.error }),
      };
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
