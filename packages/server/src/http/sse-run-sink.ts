import { deltaBase } from "../client-checkpoints.js";
import type { CheckpointBase } from "../client-checkpoints.js";
import type { RunEvent, RunSink } from "../run-events.js";
import type { SseStream } from "./sse-stream.js";

type FinalHead = Extract<RunEvent, { type: "head" }>;

/**
 * How the run's checkpoint is sent: `full` as the contract's `checkpoint` event; `delta` as
 * `checkpoint.delta` (only what the run added after `base`, the head it started from).
 */
export type CheckpointIssue =
  | { readonly form: "full"; readonly encode: (head: FinalHead) => string }
  | {
      readonly form: "delta";
      readonly base: CheckpointBase;
      readonly encode: (head: FinalHead) => string;
    };

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
  checkpoint: CheckpointIssue;
}): RunSink {
  return {
    flush: () => stream.flush(),
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
          if (checkpoint.form === "full") {
            stream.send("checkpoint", {
              checkpoint: checkpoint.encode(event),
              epoch: event.head.history.epoch,
              messages: event.head.history.length,
            });
            return;
          }
          {
            const { history } = event.head;
            const base = deltaBase(checkpoint.base, history.epoch);
            stream.send("checkpoint.delta", {
              delta: checkpoint.encode(event),
              epoch: history.epoch,
              messages: history.length,
              headDigest: history.headDigest,
              // What the delta continues: the client's last head, or the new epoch's start.
              base: {
                epoch: history.epoch,
                messages: base.messageCount,
                headDigest: base.headDigest,
              },
            });
          }
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
