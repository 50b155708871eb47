import { createGatewayClient } from "../client/gateway-client.js";
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
 * `POST /v1/runs` read incrementally through the gateway client, so a test can act at a precise
 * point of the stream (cancel, kill the process, drop the connection). A connection that
 * breaks, or cannot be made, is reported, not thrown.
 */
export async function streamRun(
  baseURL: string,
  body: unknown,
  options: StreamRunOptions = {},
): Promise<StreamedRun> {
  const client = createGatewayClient({
    baseURL,
    ...(options.token === undefined ? {} : { token: options.token }),
  });
  try {
    const response = await client.run(body, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    });
    return {
      status: response.status,
      events: response.events,
      ...(response.body === undefined ? {} : { body: response.body }),
      disconnected: response.disconnected,
    };
  } catch {
    return { status: 0, events: [], disconnected: true };
  }
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
