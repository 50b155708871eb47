import type { CanonicalMessage } from "./canonical-message.js";
import { collectStream, emptyDraft } from "./collect-stream.js";
import type { StreamDraft, StreamSink } from "./collect-stream.js";
import { ContextOverflowError, ProviderError, RunCancelledError } from "./errors.js";
import { LoopFailure, describeLoopError } from "./loop-error.js";
import { commitBatch, compact, hasCompactableHistory } from "./model-loop-steps.js";
import type { LoopState } from "./model-loop-steps.js";
import { createAssistantMessage } from "./message-builders.js";
import type { ModelRequest } from "./model-request.js";
import type { ModelLoopEvent, ModelLoopOptions, ModelLoopOutcome } from "./model-loop-types.js";
import { defaultRetryPolicy, retryDelayMs, systemClock } from "./retry-policy.js";
import { nextAssistantStep, openCallsAfter } from "./run-state.js";
import { checkTokenBudget, tokenAnchorFor } from "./token-estimate.js";
import { toModelRequest } from "./to-model-request.js";

/**
 * One model turn over ports: project → stream → commit [pending + assistant] → append. Ends
 * `awaiting-tools` when the assistant called tools (call again with the results as `pending`),
 * `completed` on a final answer. A failed or cancelled model call commits nothing. Transient
 * errors are retried with backoff while nothing was shown to the client yet; a context overflow
 * compacts once and retries once. Never throws: failures come back as `reason: "failed"`.
 */
export async function runModelLoop(options: ModelLoopOptions): Promise<ModelLoopOutcome> {
  const state: LoopState = { pending: options.pending, appended: [], compactions: [] };
  try {
    return await loop(options, state);
  } catch (error) {
    const { appended, compactions } = state;
    if (options.signal?.aborted || RunCancelledError.isInstance(error)) {
      return { reason: "cancelled", appended, compactions };
    }
    return { reason: "failed", error: describeLoopError(error), appended, compactions };
  }
}

/** A streamed event as the loop reports it to its client. */
function toLoopEvent(event: Parameters<StreamSink>[0]): ModelLoopEvent {
  switch (event.type) {
    case "text.delta":
    case "reasoning.delta":
      return { type: event.type, data: { text: event.text } };
    case "usage":
      return { type: "usage", data: event.usage };
    case "warning":
      return { type: "warning", data: event.warning };
    default: {
      const exhaustive: never = event;
      throw new TypeError(`unknown stream event ${JSON.stringify(exhaustive)}`);
    }
  }
}

function project(options: ModelLoopOptions, pending: readonly CanonicalMessage[]): ModelRequest {
  const { messages } = options.history;
  return toModelRequest({
    conversationId: options.conversationId,
    cacheScope: options.cacheScope,
    model: options.model,
    promptSpec: options.promptSpec,
    messages: pending.length === 0 ? messages : [...messages, ...pending],
    allowedTools: options.allowedTools,
    maxToolResultChars: options.maxToolResultChars,
    userTailText: options.userTailText,
    maxOutputTokens: options.maxOutputTokens,
  });
}

async function loop(options: ModelLoopOptions, state: LoopState): Promise<ModelLoopOutcome> {
  const { history, signal, compaction } = options;
  if (signal?.aborted) throw new RunCancelledError({ cause: signal.reason });
  const initial = history.check(state.pending).appended;
  if (openCallsAfter(history, initial).length > 0) {
    // Some results are still missing: keep the ones that arrived and wait for the rest.
    if (initial.length > 0) await commitBatch(options, state, initial);
    return { reason: "awaiting-tools", appended: state.appended, compactions: state.compactions };
  }
  const step = nextAssistantStep(history, options.runId);
  if (options.maxSteps !== undefined && step >= options.maxSteps) {
    throw new LoopFailure({
      code: "max_steps",
      message: `run ${options.runId} reached its limit of ${options.maxSteps} model calls`,
    });
  }
  const policy = { ...defaultRetryPolicy, ...options.retry };
  const clock = options.clock ?? systemClock;
  let retries = 0;
  let budgetChecked = false;
  let overflowCompacted = false;
  for (;;) {
    const pending = history.check(state.pending).appended;
    const request = project(options, pending);
    if (compaction?.budgetTokens !== undefined && !budgetChecked) {
      budgetChecked = true;
      // Decided from an upper bound when the call is clearly within budget (most are): only a
      // call near or over it is tokenised.
      const check = checkTokenBudget({
        request,
        epoch: history.epoch,
        anchor: compaction.tokenAnchor,
        budgetTokens: compaction.budgetTokens,
        ...(compaction.countTokens ? { countTokens: compaction.countTokens } : {}),
      });
      if (!check.fits) {
        const { estimate } = check;
        if (!hasCompactableHistory(options, state)) {
          // Nothing is stored yet (the turn's messages are still pending): the head stays as it
          // was, and no summariser runs over nothing.
          throw new LoopFailure({
            code: "turn_too_large",
            message: `this turn needs about ${estimate} input tokens, more than the context budget of ${compaction.budgetTokens}, and there is nothing earlier to compact: send less context or a shorter message`,
          });
        }
        await compact(options, state, "budget");
        continue;
      }
    }
    const draft = emptyDraft();
    try {
      await collectStream({
        provider: options.provider,
        request,
        signal,
        draft,
        sink: (event) => options.onEvent?.(toLoopEvent(event)),
      });
    } catch (error) {
      if (signal?.aborted || RunCancelledError.isInstance(error)) throw error;
      if (
        ContextOverflowError.isInstance(error) &&
        compaction &&
        !overflowCompacted &&
        hasCompactableHistory(options, state)
      ) {
        overflowCompacted = true;
        await compact(options, state, "overflow");
        continue;
      }
      // Once the client saw text of this attempt it cannot un-see it: no retry then.
      if (ProviderError.isInstance(error) && !draft.emittedDelta) {
        retries += 1;
        const delayMs = retryDelayMs({ error, retry: retries, policy });
        if (delayMs !== undefined) {
          options.onEvent?.({
            type: "retry",
            data: { attempt: retries, delayMs, error: describeLoopError(error) },
          });
          await clock.sleep(delayMs, signal);
          continue;
        }
      }
      throw error;
    }
    return finish(options, state, { request, pending, draft, step });
  }
}

async function finish(
  options: ModelLoopOptions,
  state: LoopState,
  call: {
    request: ModelRequest;
    pending: readonly CanonicalMessage[];
    draft: StreamDraft;
    step: number;
  },
): Promise<ModelLoopOutcome> {
  const { draft, request } = call;
  const { history, provider } = options;
  const epoch = history.epoch;
  const toolCalls = [...draft.toolCalls].sort((a, b) => a.index - b.index);
  const assistant = createAssistantMessage({
    runId: options.runId,
    step: call.step,
    text: draft.text,
    reasoning: draft.reasoning,
    toolCalls,
    replay: draft.replay === undefined ? {} : { [provider.id]: draft.replay },
  });
  await commitBatch(options, state, [...call.pending, assistant]);
  for (const { callId, name, arguments: args } of toolCalls) {
    options.onEvent?.({ type: "tool.call", data: { callId, name, arguments: args } });
  }
  return {
    reason: toolCalls.length > 0 ? "awaiting-tools" : "completed",
    appended: state.appended,
    assistant: history.get(assistant.id) as typeof assistant,
    ...(draft.finishReason === undefined ? {} : { finishReason: draft.finishReason }),
    ...(draft.usage === undefined
      ? {}
      : {
          usage: draft.usage,
          tokenAnchor: tokenAnchorFor({ request, epoch, inputTokens: draft.usage.inputTokens }),
        }),
    compactions: state.compactions,
  };
}
