import { startFakeProvider } from "@cursor/testkit";
import type { FakeProvider, FakeReply } from "@cursor/testkit";
import type { ScriptRequest } from "./agent-script.js";
import { runEnded, streamRun, toolCalls } from "./sse-run.js";
import type { StreamRunOptions, StreamedRun } from "./sse-run.js";

/** Answered when a test expects no provider call: not retryable, so it shows at once. */
export const unexpectedCall: FakeReply = {
  type: "error",
  status: 401,
  message: "the test expected no provider call here",
};

/**
 * The testkit fake provider answering every call with the reply a test set last (`reply`),
 * unless replies were queued (`fake.enqueue`, used first). Setting the reply per gateway request
 * instead of queueing keeps a reply from leaking into the next request when a retried request
 * makes no provider call. A summariser call (the one kind of request without tools) gets
 * `summary` instead, so automatic compaction can happen in the middle of a script. The cache
 * clock is fixed, so nothing expires.
 */
export interface ScriptedProvider {
  readonly fake: FakeProvider;
  reply: FakeReply;
  summary: FakeReply;
}

/** True for a summariser call: it is the only request the gateway sends without tools. */
export function isSummarizerCall(body: unknown): boolean {
  const tools = (body as { tools?: unknown } | null)?.tools;
  return !Array.isArray(tools) || tools.length === 0;
}

export async function startScriptedProvider(
  options: { contextWindow?: number } = {},
): Promise<ScriptedProvider> {
  const scripted: { fake?: FakeProvider; reply: FakeReply; summary: FakeReply } = {
    reply: unexpectedCall,
    summary: { type: "text", text: "Summary: the conversation so far, in brief." },
  };
  const fake = await startFakeProvider({
    cache: { clock: () => 1_800_000_000_000 },
    defaultReply: (request) => (isSummarizerCall(request.body) ? scripted.summary : scripted.reply),
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
  });
  scripted.fake = fake;
  return scripted as ScriptedProvider;
}

class ScriptStepError extends Error {
  constructor(request: ScriptRequest, detail: string, result: StreamedRun) {
    super(
      `${request.label}: ${detail}; status ${result.status}, events ${JSON.stringify(result.events)}${
        result.body === undefined ? "" : `, body ${JSON.stringify(result.body)}`
      }`,
    );
    this.name = "ScriptStepError";
  }
}

/** Sends one scripted request and checks it ended as the script says (end reason, tool calls). */
export async function runScriptRequest({
  baseURL,
  provider,
  request,
  options,
}: {
  baseURL: string;
  provider: ScriptedProvider;
  request: ScriptRequest;
  options?: StreamRunOptions;
}): Promise<StreamedRun> {
  provider.reply = request.reply;
  const result = await streamRun(baseURL, request.body, options);
  provider.reply = unexpectedCall;
  checkScriptResult(request, result);
  return result;
}

export function checkScriptResult(request: ScriptRequest, result: StreamedRun): void {
  if (result.status !== 200 || result.disconnected) {
    throw new ScriptStepError(request, "expected a complete 200 stream", result);
  }
  const ended = runEnded(result.events);
  if (ended.reason !== request.expectedEnd) {
    throw new ScriptStepError(request, `expected run.ended ${request.expectedEnd}`, result);
  }
  const calls = toolCalls(result.events).map((call) => call.callId);
  if (JSON.stringify(calls) !== JSON.stringify(request.expectedCallIds)) {
    throw new ScriptStepError(
      request,
      `expected tool calls ${JSON.stringify(request.expectedCallIds)}`,
      result,
    );
  }
}

/** Runs scripted requests in order; returns each one's stream. */
export async function runScript({
  baseURL,
  provider,
  requests,
  token,
}: {
  baseURL: string;
  provider: ScriptedProvider;
  requests: readonly ScriptRequest[];
  token?: string;
}): Promise<StreamedRun[]> {
  const results: StreamedRun[] = [];
  for (const request of requests) {
    results.push(
      await runScriptRequest({
        baseURL,
        provider,
        request,
        ...(token === undefined ? {} : { options: { token } }),
      }),
    );
  }
  return results;
}
