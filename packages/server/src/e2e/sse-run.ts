import type { RunEvent } from "../client/gateway-client.js";

export interface StreamedRun {
  readonly status: number;
  /** The SSE events received, in order (empty when the request was rejected). */
  readonly events: readonly RunEvent[];
  /** The JSON body of a rejected request (`{"error": …}`). */
  readonly body?: unknown;
  /** True when the connection broke before the response ended (e.g. the gateway was killed). */
  readonly disconnected: boolean;
}

export interface StreamRunOptions {
  readonly token?: string;
  /** Called for every event as it arrives (before the next one is read). */
  readonly onEvent?: (event: RunEvent, index: number) => void | Promise<void>;
  readonly signal?: AbortSignal;
}

/**
 * `POST /v1/runs` read incrementally, so a test can act at a precise point of the stream
 * (cancel, kill the process, drop the connection). A connection that breaks is reported, not
 * thrown.
 */
export async function streamRun(
  baseURL: string,
  body: unknown,
  options: StreamRunOptions = {},
): Promise<StreamedRun> {
  const events: RunEvent[] = [];
  let response: Response;
  try {
    response = await fetch(`${baseURL}/v1/runs`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      },
      body: JSON.stringify(body),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch {
    return { status: 0, events, disconnected: true };
  }
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const text = await response.text();
    return {
      status: response.status,
      events,
      body: JSON.parse(text) as unknown,
      disconnected: false,
    };
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let boundary = buffered.indexOf("\n\n");
      while (boundary !== -1) {
        const frame = buffered.slice(0, boundary);
        buffered = buffered.slice(boundary + 2);
        const event = parseFrame(frame);
        if (event !== undefined) {
          events.push(event);
          await options.onEvent?.(event, events.length - 1);
          // An aborted request reads nothing more, even what already arrived.
          if (options.signal?.aborted) {
            await reader.cancel().catch(() => undefined);
            return { status: response.status, events, disconnected: true };
          }
        }
        boundary = buffered.indexOf("\n\n");
      }
    }
  } catch {
    return { status: response.status, events, disconnected: true };
  }
  return { status: response.status, events, disconnected: false };
}

function parseFrame(frame: string): RunEvent | undefined {
  let event = "message";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length === 0 ? undefined : { event, data: JSON.parse(data.join("\n")) as unknown };
}

/** `run.ended`'s data, asserting it is there exactly once and last. */
export function runEnded(events: readonly RunEvent[]): {
  reason: string;
  error?: { code: string; message: string };
} {
  const ends = events.filter((event) => event.event === "run.ended");
  if (ends.length !== 1 || events.at(-1)?.event !== "run.ended") {
    throw new Error(
      `expected exactly one run.ended, last; got ${JSON.stringify(events.map((e) => e.event))}`,
    );
  }
  return ends[0]!.data as { reason: string; error?: { code: string; message: string } };
}

export interface ToolCallEvent {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

export function toolCalls(events: readonly RunEvent[]): ToolCallEvent[] {
  return events.filter((event) => event.event === "tool.call").map((e) => e.data as ToolCallEvent);
}

export function eventNames(events: readonly RunEvent[]): string[] {
  return events.map((event) => event.event);
}

/** The data of the last `checkpoint` event. */
export function lastCheckpoint(
  events: readonly RunEvent[],
): { checkpoint: string; epoch: number; messages: number } | undefined {
  const found = events.filter((event) => event.event === "checkpoint").at(-1);
  return found?.data as { checkpoint: string; epoch: number; messages: number } | undefined;
}
