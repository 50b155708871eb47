import fc from "fast-check";
import type { CanonicalMessage, ContentPart } from "../canonical-message.js";
import { HistoryLog } from "../history-log.js";
import {
  createAssistantMessage,
  createRequestContextMessage,
  createRuntimeMessage,
  createSummaryMessage,
  createToolResultMessage,
  createUserMessage,
} from "../message-builders.js";

/** One generated step; the interpreter turns each into one append batch. */
export type HistoryAction =
  | { readonly kind: "context"; readonly text: string }
  | { readonly kind: "runtime"; readonly text: string; readonly background: boolean }
  | { readonly kind: "user"; readonly text: string; readonly image: boolean }
  | {
      readonly kind: "assistant";
      readonly text: string;
      readonly reasoning: string;
      readonly calls: readonly string[];
      readonly replay: boolean;
    }
  /** Answers `count` open calls, picked in the order given by `order` (out-of-order commits). */
  | {
      readonly kind: "results";
      readonly count: number;
      readonly order: readonly number[];
      readonly size: number;
    };

const text = fc.string({ maxLength: 12 });
const action: fc.Arbitrary<HistoryAction> = fc.oneof(
  fc.record({ kind: fc.constant("context" as const), text }),
  fc.record({ kind: fc.constant("runtime" as const), text, background: fc.boolean() }),
  fc.record({ kind: fc.constant("user" as const), text, image: fc.boolean() }),
  fc.record({
    kind: fc.constant("assistant" as const),
    text,
    reasoning: text,
    calls: fc.array(fc.constantFrom("read", "grep", "edit"), { maxLength: 4 }),
    replay: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("results" as const),
    count: fc.integer({ min: 1, max: 4 }),
    order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
    size: fc.integer({ min: 0, max: 60 }),
  }),
);

export const historyScenario = fc.record({
  /** Start in a compacted epoch (context + summary) instead of an empty one. */
  compacted: fc.boolean(),
  actions: fc.array(action, { minLength: 1, maxLength: 24 }),
});

const png: ContentPart = { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" };

/**
 * Plays a scenario into a HistoryLog, one batch per action; a non-result action while calls
 * are open first answers them (in reverse call order), as a gateway would close them. Returns the
 * batches as given (with a copy taken before appending) and a snapshot of the epoch after each batch.
 */
export function playScenario({
  compacted,
  actions,
}: {
  compacted: boolean;
  actions: readonly HistoryAction[];
}) {
  const initial: CanonicalMessage[] = compacted
    ? [
        createRequestContextMessage({ eventId: "ctx.0", digest: "0".repeat(64), text: "rules" }),
        createSummaryMessage({ summarizedEpoch: 0, text: "summary" }),
      ]
    : [];
  const log = new HistoryLog({ epoch: compacted ? 1 : 0, messages: initial });
  const batches: { input: CanonicalMessage[]; before: CanonicalMessage[] }[] = [];
  const snapshots: (readonly CanonicalMessage[])[] = [log.messages.slice()];
  const openCalls: number[] = [0];
  let n = 0;
  const result = (callId: string, name: string, size: number) =>
    createToolResultMessage({
      callId,
      name,
      content: `${callId}:`.padEnd(size, "x"),
      isError: size % 7 === 0,
      ...(size % 5 === 0
        ? { image: { type: "image" as const, mimeType: "image/png", data: "AA==" } }
        : {}),
    });
  for (const step of actions) {
    n += 1;
    const batch: CanonicalMessage[] = [];
    let open = log.pendingToolCalls().slice();
    if (step.kind !== "results" && open.length > 0) {
      batch.push(...open.reverse().map((call) => result(call.callId, call.name, n)));
      open = [];
    }
    switch (step.kind) {
      case "context":
        batch.push(
          createRequestContextMessage({
            eventId: `ctx.${n}`,
            digest: "a".repeat(64),
            text: step.text,
          }),
        );
        break;
      case "runtime":
        batch.push(
          createRuntimeMessage({
            eventId: `turn.${n}`,
            runtimeKind: step.background ? "background-completion" : "user-turn",
            content: [{ type: "text", text: step.text }],
          }),
        );
        break;
      case "user":
        batch.push(
          createUserMessage({
            id: `user:${n}`,
            content: [{ type: "text", text: step.text }, ...(step.image ? [png] : [])],
          }),
        );
        break;
      case "assistant":
        batch.push(
          createAssistantMessage({
            runId: "run",
            step: n,
            text: step.text,
            reasoning: step.reasoning,
            // Calls arrive in reverse index order, as streamed calls may.
            toolCalls: step.calls
              .map((name, index) => ({
                index,
                callId: `call_${n}_${index}`,
                name,
                arguments: `{"i":${index}}`,
              }))
              .reverse(),
            replay: step.replay ? { scripted: { state: n } } : {},
          }),
        );
        break;
      case "results": {
        const picked = open
          .map((call, i) => ({ call, key: step.order[i % step.order.length]! * 10 + i }))
          .sort((a, b) => a.key - b.key)
          .slice(0, step.count);
        batch.push(...picked.map(({ call }) => result(call.callId, call.name, step.size)));
        break;
      }
    }
    if (batch.length === 0) continue;
    batches.push({ input: batch, before: structuredClone(batch) });
    log.append(batch);
    snapshots.push(log.messages.slice());
    openCalls.push(log.pendingToolCalls().length);
  }
  return { log, batches, snapshots, openCalls };
}
