import type { RunEvent, RunSink } from "../run-events.js";
import type { SseStream } from "./sse-stream.js";

type FinalHead = Extract<RunEvent, { type: "head" }>;

/**
 * The JSON front door's sink: each run event as the contract's SSE event (docs/http-contract.md). The
 * final `head` becomes the `checkpoint` event, its token encoded by `checkpoint` (only while the
 * client is still there to receive it); the other `head` events are not part of the contract.
 */
export function sseRunSink({
  stream,
  checkpoint,
}: {
  stream: SseStream;
  checkpoint: (head: FinalHead) => string;
}): RunSink {
  return {
    event(event) {
      switch (event.type) {
        case "run.started":
          stream.send("run.started", {
            conversationId: event.conversationId,
            runId: event.runId,
            epoch: event.epoch,
          });
          return;
        case "text.delta":
        case "reasoning.delta":
          stream.send(event.type, { text: event.text });
          return;
        case "tool.call":
          stream.send("tool.call", {
            callId: event.callId,
            name: event.name,
            arguments: event.arguments,
          });
          return;
        case "usage":
          stream.send("usage", event.usage);
          return;
        case "compaction.started":
          // Not in the contract's table (extra events are allowed): the summariser call that
          // follows can take a while, so a client can show that it is summarising.
          stream.send("compaction.started", { reason: event.reason });
          return;
        case "compaction":
          stream.send("compaction", { reason: event.reason, epoch: event.epoch });
          return;
        case "warning":
          stream.send("warning", event.warning);
          return;
        case "retry":
          stream.send("retry", {
            attempt: event.attempt,
            delayMs: event.delayMs,
            error: { code: event.error.code, message: event.error.message },
          });
          return;
        case "head":
          if (!event.final || !stream.connected) return;
          stream.send("checkpoint", {
            checkpoint: checkpoint(event),
            epoch: event.head.history.epoch,
            messages: event.head.history.length,
          });
          return;
        case "run.ended":
          stream.send("run.ended", {
            reason: event.reason,
            ...(event.error === undefined
              ? {}
              : { error: { code: event.error.code, message: event.error.message } }),
          });
          return;
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown run event ${JSON.stringify(exhaustive)}`);
        }
      }
    },
  };
}
