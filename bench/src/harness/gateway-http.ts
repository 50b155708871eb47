import type { RunRequestBody } from "@cursor/testkit";

// @cursor/server's own SSE client is not part of its public API, so the benchmark speaks the
// gateway's HTTP contract (gateway-api.md) itself; this is all of it the benchmark needs.

/** One SSE event of a run. */
export interface RunEvent {
  readonly event: string;
  readonly data: unknown;
}

export interface RunAnswer {
  readonly status: number;
  readonly events: readonly RunEvent[];
  /** The JSON error body of a request rejected before streaming. */
  readonly error?: unknown;
}

/** Parses a complete `text/event-stream` body into `event:` + `data:` frames. */
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

/** `POST /v1/runs` and read the whole stream. */
export async function postRun(baseURL: string, body: unknown): Promise<RunAnswer> {
  const response = await fetch(`${baseURL}/v1/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    return { status: response.status, events: parseSseEvents(text) };
  }
  return { status: response.status, events: [], error: JSON.parse(text) as unknown };
}

export async function getJson(baseURL: string, path: string): Promise<unknown> {
  const response = await fetch(`${baseURL}${path}`);
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}`);
  return (await response.json()) as unknown;
}

/** The `run.ended` reason of a finished run. */
export function endReason(events: readonly RunEvent[]): string | undefined {
  const last = events.at(-1);
  return last?.event === "run.ended" ? (last.data as { reason: string }).reason : undefined;
}

/**
 * Sends one session request and checks it ends as the session expects. One known disagreement
 * between the session generator and the gateway is tolerated and reported instead of ending the
 * benchmark: an `inject-context` whose `expectedRunId` names a duplicate background delivery's
 * run, which the gateway does not count as the latest run (409). It is resent without
 * `expectedRunId` and `onDeviation` says so (the report lists every deviation).
 */
export async function sendSessionRequest({
  baseURL,
  body,
  expectedEnd,
  onDeviation,
}: {
  baseURL: string;
  body: RunRequestBody & { readonly checkpoint?: string };
  expectedEnd: string;
  onDeviation: (message: string) => void;
}): Promise<RunAnswer> {
  let answer = await postRun(baseURL, body);
  const action = body.action;
  if (answer.status === 409 && action.type === "inject-context" && action.expectedRunId) {
    const message = JSON.stringify(answer.error);
    onDeviation(
      `inject-context with expectedRunId ${action.expectedRunId} answered 409 ${message}; resent without expectedRunId`,
    );
    const { expectedRunId: _dropped, ...rest } = action;
    answer = await postRun(baseURL, { ...body, action: rest });
  }
  const reason = endReason(answer.events);
  if (answer.status !== 200 || reason !== expectedEnd) {
    throw new Error(
      `${action.type} request ended ${answer.status} ${reason ?? "(no run.ended)"}, expected ${expectedEnd}: ${JSON.stringify(answer.error ?? answer.events.at(-1))}`,
    );
  }
  return answer;
}
