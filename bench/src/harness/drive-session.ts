import type { CanonicalMessage } from "@cursor/run";
import type {
  AgentSession,
  RecordedRequest,
  RequestCacheDiagnostics,
  RunRequestBody,
  SessionEvent,
  SessionRequestContext,
} from "@cursor/testkit";
import type { GatewayHarness } from "./gateway-harness.js";
import { getJson, sendSessionRequest } from "./gateway-http.js";
import { isSummarizerBody } from "./scripted-replies.js";

/** One provider call of a session, as the fake provider received and priced it. */
export interface SessionCall {
  /** Position among the session's provider calls, from 0. */
  readonly index: number;
  /** The session event (gateway request) that caused it. */
  readonly eventIndex: number;
  readonly eventType: SessionEvent["type"];
  /** The gateway's compaction (summariser) call. */
  readonly summarizer: boolean;
  /** Made by a request that compacted (its summariser call and the call after it). */
  readonly compaction: boolean;
  /** The received body, in received key order. */
  readonly body: Record<string, unknown>;
  readonly cache: RequestCacheDiagnostics;
  /** Cache clock (ms) when the call arrived. */
  readonly at: number;
  /** The gateway request behind the call. */
  readonly request: RunRequestBody;
  /**
   * The request context the gateway builds its prompt spec (MCP tools) from: the request's own,
   * else the latest one the conversation was sent.
   */
  readonly promptContext: SessionRequestContext | undefined;
  /**
   * For a model call (not the summariser): the canonical messages of the epoch the call saw,
   * from the gateway's `GET /v1/conversations/{id}/history` (the stored head minus the
   * assistant message the call produced).
   */
  readonly messages?: readonly CanonicalMessage[];
}

export interface DriveSessionOptions {
  readonly harness: GatewayHarness;
  readonly session: AgentSession;
  /** Sets the simulated clock before each request (the event's timestamp). */
  readonly setClock?: (ms: number) => void;
  /** Fetch the canonical history after each request (for the baselines). */
  readonly withHistory?: boolean;
  /** Called for every provider call as soon as its request ended (keeps memory flat). */
  readonly onCall: (call: SessionCall) => void;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface DriveSessionResult {
  readonly requests: number;
  readonly providerCalls: number;
  readonly compactions: number;
  readonly restarts: number;
  /** Requests the gateway refused that the session expected to pass (see `sendSessionRequest`). */
  readonly deviations: readonly string[];
}

/**
 * Drives a generated agent session through the real gateway over HTTP: enqueues each event's
 * scripted replies, posts its body, checks the run ended as the script expects, restarts the
 * gateway where the session says so, and reports every provider call the request caused.
 */
export async function driveSession(options: DriveSessionOptions): Promise<DriveSessionResult> {
  const { harness, session } = options;
  let callIndex = 0;
  let compactions = 0;
  let restarts = 0;
  let requests = 0;
  const deviations: string[] = [];
  let promptContext: SessionRequestContext | undefined;
  for (const event of session.events) {
    options.onProgress?.(event.index, session.events.length);
    if (event.type === "restart") {
      await harness.restart();
      restarts += 1;
      continue;
    }
    options.setClock?.(Date.parse(event.body.timestamp));
    promptContext = event.body.requestContext ?? promptContext;
    harness.replies.push(event.replies);
    const before = harness.fake.requests.length;
    const response = await sendSessionRequest({
      baseURL: harness.url,
      body: event.body,
      expectedEnd: event.expectedEnd,
      onDeviation: (message) => deviations.push(`event ${event.index}: ${message}`),
    }).catch((error: unknown) => {
      throw new Error(`session event ${event.index} (${event.type}): ${String(error)}`);
    });
    requests += 1;
    if (harness.replies.pending > 0) {
      throw new Error(`event ${event.index}: ${harness.replies.pending} scripted replies unused`);
    }
    const compacted = response.events.some((e) => e.event === "compaction");
    if (compacted) compactions += 1;
    const recorded = harness.fake.requests.slice(before);
    if (recorded.length === 0) continue;
    const history = options.withHistory
      ? ((await getJson(
          harness.url,
          `/v1/conversations/${event.body.conversationId}/history`,
        )) as CanonicalMessage[])
      : undefined;
    for (const record of recorded) {
      options.onCall(
        toSessionCall({
          record,
          event,
          index: callIndex,
          compacted,
          history: history ?? [],
          promptContext,
        }),
      );
      callIndex += 1;
    }
  }
  options.onProgress?.(session.events.length, session.events.length);
  return { requests, providerCalls: callIndex, compactions, restarts, deviations };
}

function toSessionCall({
  record,
  event,
  index,
  compacted,
  history,
  promptContext,
}: {
  promptContext: SessionRequestContext | undefined;
  record: RecordedRequest;
  event: Exclude<SessionEvent, { type: "restart" }>;
  index: number;
  compacted: boolean;
  history: readonly CanonicalMessage[];
}): SessionCall {
  if (record.cache === null || typeof record.body !== "object" || record.body === null) {
    throw new Error(
      `provider call ${index} was refused: ${record.status} ${JSON.stringify(record.error)}`,
    );
  }
  const summarizer = isSummarizerBody(record.body);
  const last = history.at(-1);
  // Each model call of a generated session appends exactly one assistant message, the last one
  // of the head once the request ended; what came before it is what the call saw.
  const messages =
    summarizer || history.length === 0
      ? undefined
      : last?.kind === "assistant"
        ? history.slice(0, -1)
        : history;
  return {
    index,
    eventIndex: event.index,
    eventType: event.type,
    summarizer,
    compaction: compacted,
    body: record.body as Record<string, unknown>,
    cache: record.cache,
    at: record.at,
    request: event.body,
    promptContext,
    ...(messages === undefined ? {} : { messages }),
  };
}
