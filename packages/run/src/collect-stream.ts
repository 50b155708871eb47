import type { JsonValue, ToolCall } from "./canonical-message.js";
import { NetworkError, RunCancelledError } from "./errors.js";
import type { ModelRequest } from "./model-request.js";
import type { FinishReason, ProviderAdapter, Usage, Warning } from "./provider-adapter.js";

/** What one provider call produced so far. */
export interface StreamDraft {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  /** The last `replay` event's state. */
  replay: JsonValue | undefined;
  usage: Usage | undefined;
  finishReason: FinishReason | undefined;
  /** True once a text or reasoning delta reached the client: the call can no longer be retried. */
  emittedDelta: boolean;
}

export type StreamSink = (
  event:
    | { type: "text.delta"; text: string }
    | { type: "reasoning.delta"; text: string }
    | { type: "usage"; usage: Usage }
    | { type: "warning"; warning: Warning },
) => void;

export function emptyDraft(): StreamDraft {
  return {
    text: "",
    reasoning: "",
    toolCalls: [],
    replay: undefined,
    usage: undefined,
    finishReason: undefined,
    emittedDelta: false,
  };
}

/** Settles with `promise`, or rejects with `RunCancelledError` as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new RunCancelledError({ cause: signal.reason }));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new RunCancelledError({ cause: signal.reason }));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Streams one provider call into `draft`, forwarding deltas, usage and warnings to `sink` as they
 * arrive.
 * Resolves only when the stream ended with a `finish` event; a stream that just stops is a cut
 * connection (`NetworkError`). Stops waiting as soon as `signal` aborts, even if the provider
 * ignores the signal.
 */
export async function collectStream({
  provider,
  request,
  signal,
  draft,
  sink,
}: {
  provider: ProviderAdapter;
  request: ModelRequest;
  signal: AbortSignal | undefined;
  draft: StreamDraft;
  sink: StreamSink;
}): Promise<void> {
  const iterator = provider.stream(request, signal ? { signal } : {})[Symbol.asyncIterator]();
  let done = false;
  try {
    while (!done) {
      const next = await raceAbort(iterator.next(), signal);
      if (next.done === true) {
        done = true;
        break;
      }
      const event = next.value;
      switch (event.type) {
        case "text-delta":
          draft.text += event.text;
          if (event.text !== "") {
            draft.emittedDelta = true;
            sink({ type: "text.delta", text: event.text });
          }
          break;
        case "reasoning-delta":
          draft.reasoning += event.text;
          if (event.text !== "") {
            draft.emittedDelta = true;
            sink({ type: "reasoning.delta", text: event.text });
          }
          break;
        case "tool-call":
          draft.toolCalls.push({
            index: event.index,
            callId: event.callId,
            name: event.name,
            arguments: event.arguments,
          });
          break;
        case "usage":
          draft.usage = event.usage;
          sink({ type: "usage", usage: event.usage });
          break;
        case "replay":
          draft.replay = event.state;
          break;
        case "finish":
          draft.finishReason = event.reason;
          break;
        case "warning":
          // Not output: the call can still be retried after it.
          sink({ type: "warning", warning: event.warning });
          break;
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown provider event ${JSON.stringify(exhaustive)}`);
        }
      }
    }
  } finally {
    // Release the provider's connection when we stop early; never wait on it, and never let a
    // failing cleanup hide the error that stopped us.
    if (!done) {
      try {
        iterator.return?.()?.catch(() => undefined);
      } catch {
        // ignored: see above
      }
    }
  }
  if (signal?.aborted) throw new RunCancelledError({ cause: signal.reason });
  if (draft.finishReason === undefined) {
    throw new NetworkError({
      providerId: provider.id,
      message: "the provider stream ended without a finish event",
    });
  }
}
