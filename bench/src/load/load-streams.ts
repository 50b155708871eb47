/** One server-sent event: its name and its data line(s). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** The events of a whole SSE stream (comments and heartbeats skipped). */
export function parseSseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice("event:".length).trim();
      else if (line.startsWith("data:")) data.push(line.slice("data:".length).trimStart());
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

function endReason(events: readonly SseEvent[]): string {
  const last = events.at(-1);
  if (last?.event !== "run.ended") return "no run.ended";
  const data = JSON.parse(last.data) as { reason?: string; error?: { code?: string } };
  return data.error?.code === undefined
    ? String(data.reason)
    : `${data.reason} (${data.error.code}: ${JSON.stringify(data.error)})`;
}

/**
 * The first call of a load turn: the model asks for `read_file` of `path`, once, and the run
 * ends `awaiting-tools`. Returns the call id the client answers, or what went wrong.
 */
export function readToolCall({
  status,
  text,
  path,
}: {
  status: number;
  text: string;
  path: string;
}): { readonly callId: string } | { readonly problem: string } {
  if (status !== 200) return { problem: `answered ${status}: ${text.slice(0, 300)}` };
  const events = parseSseEvents(text);
  const reason = endReason(events);
  if (reason !== "awaiting-tools") return { problem: `ended ${reason}, expected awaiting-tools` };
  const calls = events
    .filter((event) => event.event === "tool.call")
    .map((event) => JSON.parse(event.data) as { callId: string; name: string; arguments: string });
  if (calls.length !== 1) return { problem: `${calls.length} tool calls, expected 1` };
  const call = calls[0]!;
  if (call.name !== "read_file" || !call.arguments.includes(path)) {
    return { problem: `tool call ${call.name} ${call.arguments}, expected read_file of ${path}` };
  }
  return { callId: call.callId };
}

/** The second call of a load turn: the model answers with text and the run completes. */
export function answerProblem({ status, text }: { status: number; text: string }): string | null {
  if (status !== 200) return `answered ${status}: ${text.slice(0, 300)}`;
  const events = parseSseEvents(text);
  const reason = endReason(events);
  if (reason !== "completed") return `ended ${reason}, expected completed`;
  if (!events.some((event) => event.event === "text.delta")) return "completed without text";
  return null;
}

/** A provider call sent straight to the fake provider: 200 and a completed response. */
export function directProblem({ status, text }: { status: number; text: string }): string | null {
  if (status !== 200) return `answered ${status}: ${text.slice(0, 300)}`;
  return text.includes("event: response.completed") ? null : "no response.completed event";
}
