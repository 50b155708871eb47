import { createConversationCompactor } from "@cursor/projection";
import type { CallModelPlan, CompactPlan, TurnPlan } from "@cursor/projection";
import { RunCancelledError, contextBudget, describeLoopError, runModelLoop } from "@cursor/run";
import type {
  CompactionRequest,
  CompactionResult,
  LoopError,
  ModelLoopEvent,
  PersistEpoch,
  PromptSpec,
  ProviderAdapter,
  Usage,
} from "@cursor/run";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import type { ConversationHeadOwner, HeadState } from "./conversation-head-owner.js";
import { redactingProvider } from "./redaction/redacting-provider.js";
import { redactingSink } from "./redaction/redacting-sink.js";
import type { SecretRedactor } from "./redaction/secret-redactor.js";
import type { RunEndReason, RunError, RunOutcome, RunSink } from "./run-events.js";
import { StoreError } from "./store/store-error.js";
import type { TurnWriter } from "./turn-writer.js";
import type { RunCallRecorder } from "./usage/run-call-recorder.js";

/** How far a plan got: the run's end reason, its error, and its final answer when completed. */
interface PlanResult {
  readonly reason: RunEndReason;
  readonly error?: LoopError;
  readonly finalText?: string;
}

/**
 * Runs one accepted request to its end: `run.started`, what the plan does (model loop, tool
 * wait, replay, compaction), a `head` event after every store write that moved the head, a final
 * `head` when the conversation is stored, and `run.ended` exactly once, last (`execute`); then the
 * run's record and its usage records (`finish`). Every store write is one transaction; a failed
 * or cancelled model call writes nothing. Front-door neutral: events go to a `RunSink`.
 */
export class RunExecution {
  readonly #options: ConversationServiceOptions;
  readonly #redactor: SecretRedactor;
  readonly #calls: RunCallRecorder;
  readonly #owner: ConversationHeadOwner;
  readonly #writer: TurnWriter;
  readonly #plan: TurnPlan;
  readonly #promptSpec: PromptSpec;
  readonly #requestRunId: string;
  readonly #adapter: ProviderAdapter;
  readonly #providerModel: string;
  readonly #cacheScope: string;
  readonly #signal: AbortSignal;

  constructor(input: {
    options: ConversationServiceOptions;
    redactor: SecretRedactor;
    /** Records every provider call of the run (usage records, provider-request log, metrics). */
    calls: RunCallRecorder;
    owner: ConversationHeadOwner;
    writer: TurnWriter;
    plan: TurnPlan;
    promptSpec: PromptSpec;
    /** The request's run id (`run.started`); the plan's `runId` may continue another run. */
    requestRunId: string;
    adapter: ProviderAdapter;
    providerModel: string;
    /** The tenant's prompt-cache scope (`ModelRequest.cacheScope`). */
    cacheScope: string;
    signal: AbortSignal;
  }) {
    this.#options = input.options;
    this.#redactor = input.redactor;
    this.#calls = input.calls;
    this.#owner = input.owner;
    this.#writer = input.writer;
    this.#plan = input.plan;
    this.#promptSpec = input.promptSpec;
    this.#requestRunId = input.requestRunId;
    this.#adapter = input.adapter;
    this.#providerModel = input.providerModel;
    this.#cacheScope = input.cacheScope;
    this.#signal = input.signal;
  }

  #conflict: StoreError | undefined;

  /** How the run ended, for `finish` (set when `execute` returns). */
  #ended: { readonly result: PlanResult; readonly error: RunError | undefined } | undefined;

  /**
   * Runs the request up to its answer's end: `run.started`, the plan, the final `head` (the
   * conversation as stored, for the front door's checkpoint) and `run.ended`, last. What the
   * answer does not need (the run's record, its calls' usage records) is left to `finish`, so a
   * front door can end its response before those writes.
   */
  async execute(frontDoor: RunSink): Promise<RunOutcome> {
    // Every event leaves through the one redaction path, whichever front door consumes it.
    const sink = redactingSink(frontDoor, this.#redactor);
    const { conversationId } = this.#owner.state;
    sink.event({
      type: "run.started",
      conversationId,
      runId: this.#requestRunId,
      epoch: this.#owner.state.head.history.epoch,
    });
    let result: PlanResult;
    let thrownLogged = false;
    try {
      result = await this.#runPlan(sink);
    } catch (thrown) {
      const cancelled = this.#signal.aborted || RunCancelledError.isInstance(thrown);
      result = cancelled
        ? { reason: "cancelled" }
        : { reason: "failed", error: describeRunError(thrown) };
      if (!cancelled) {
        this.#options.logger.error({ err: thrown, conversationId }, "run failed");
        thrownLogged = true;
      }
    }
    const error: RunError | undefined =
      result.error === undefined
        ? undefined
        : { ...result.error, message: this.#redactor.redact(result.error.message) };
    if (result.reason === "failed" && error !== undefined && !thrownLogged) {
      // A provider failure the loop reported (a throw was logged above, with its stack).
      this.#options.logger.error(
        { conversationId, runId: this.#plan.runId, code: error.code, message: error.message },
        "run failed",
      );
    }
    this.#ended = { result, error };
    // The conversation as stored: its messages are committed (the run's record, written by
    // `finish`, is not part of a checkpoint).
    const state = this.#owner.state;
    if (state.version !== null) this.#emitHead(sink, state, true);
    this.#options.metrics.increment("cursor_gateway_runs_total", { reason: result.reason });
    const outcome: RunOutcome = {
      reason: result.reason,
      ...(error === undefined ? {} : { error }),
    };
    sink.event({ type: "run.ended", ...outcome });
    return outcome;
  }

  /**
   * After `execute`: stores the run's record (how it ended, its final text for a retry's
   * replay, the usage totals) and its calls' usage records. The caller holds the conversation
   * (its run slot) until this resolves, so the next run of it sees both. Never throws: a write
   * that fails is logged (the answer was complete and its messages are committed).
   */
  async finish(): Promise<void> {
    const ended = this.#ended;
    if (ended === undefined) throw new Error("finish runs after execute");
    const { result, error } = ended;
    const { conversationId } = this.#owner.state;
    try {
      await this.#writer.recordRun({
        run: {
          runId: this.#plan.runId,
          status: result.reason,
          ...(error === undefined ? {} : { error: { code: error.code, message: error.message } }),
          ...(result.finalText === undefined ? {} : { finalText: result.finalText }),
        },
        // A request that wrote nothing is still the conversation's latest accepted run request
        // (`expectedRunId` of the next injection names it), unless its model call never landed.
        acceptRun: this.#plan.next === "done" || this.#plan.next === "await-tools",
      });
    } catch (thrown) {
      this.#options.logger.error(
        { err: thrown, conversationId },
        "could not record the end of the run",
      );
    }
    // The run's usage records are stored before its slot is released: the next run of the
    // conversation (on any process) compares its prompt with them.
    await this.#calls.flush();
  }

  async #runPlan(sink: RunSink): Promise<PlanResult> {
    const plan = this.#plan;
    switch (plan.next) {
      case "done":
        return this.#replayDone(sink);
      case "await-tools": {
        if (plan.appended.length > 0 || plan.newTurns.length > 0) {
          const checked = this.#owner.state.head.history.check(plan.appended);
          const after = await this.#writer.appendMessages({
            messages: checked.appended,
            digests: checked.digests,
            headDigest: checked.headDigest,
            length: checked.length,
          });
          this.#emitHead(sink, after, false);
        }
        // A retry of a run that stopped at tool calls: the client lost the stream that carried
        // them (that is why it retries), so they are sent again or it could never answer them.
        if (plan.retry) {
          for (const { callId, name, arguments: args } of plan.pendingToolCalls) {
            sink.event({ type: "tool.call", callId, name, arguments: args });
          }
        }
        return { reason: "awaiting-tools" };
      }
      case "compact":
        return this.#compactManually(plan, sink);
      case "call-model":
        return this.#runLoop(plan, sink);
      default: {
        const exhaustive: never = plan;
        throw new Error(`unknown plan ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /** Work done before: the stored answer, replayed without a provider call. */
  async #replayDone(sink: RunSink): Promise<PlanResult> {
    const { tenant, conversationId } = this.#owner.state;
    const stored = await this.#options.store.getRun({
      tenant,
      conversationId,
      runId: this.#plan.runId,
    });
    if (stored?.finalText) sink.event({ type: "text.delta", text: stored.finalText });
    return {
      reason: "completed",
      ...(stored?.finalText === undefined ? {} : { finalText: stored.finalText }),
    };
  }

  async #runLoop(plan: CallModelPlan, sink: RunSink): Promise<PlanResult> {
    const options = this.#options;
    const state = this.#owner.state;
    const provider = this.#provider("model");
    const outcome = await runModelLoop({
      conversationId: state.conversationId,
      cacheScope: this.#cacheScope,
      runId: plan.runId,
      model: this.#providerModel,
      promptSpec: this.#promptSpec,
      ...(plan.allowedTools === undefined ? {} : { allowedTools: plan.allowedTools }),
      history: state.head.history,
      // The loop commits only what is new (`history.check`); a retry's stored messages are no-ops.
      pending: plan.appended,
      // What compaction keeps of this turn verbatim (its context and runtime messages).
      currentInitialMessages: plan.currentInitialMessages,
      provider,
      // The batch is the history's own check: validated copies and their digests.
      commit: async (batch) => {
        // The answer's text is out before the store write and the checkpoint.
        sink.flush?.();
        const after = await this.#noteConflict(
          this.#writer.appendMessages({
            messages: batch.messages,
            digests: batch.digests,
            headDigest: batch.headDigest,
            length: batch.length,
          }),
        );
        this.#emitHead(sink, after, false);
        this.#calls.committed();
      },
      compaction: {
        budgetTokens: contextBudget({ contextWindowTokens: options.contextWindow }),
        tokenAnchor: state.tokenAnchor,
        compact: this.#compactor(this.#provider("summarizer"), sink),
      },
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      signal: this.#signal,
      onEvent: (event) => this.#forward(event, sink),
    });
    if (outcome.tokenAnchor !== undefined) {
      this.#owner.dispatch({ type: "token-anchored", anchor: outcome.tokenAnchor });
    }
    for (const compaction of outcome.compactions) {
      options.metrics.increment("cursor_gateway_compactions_total", { reason: compaction.trigger });
    }
    const finalText = outcome.reason === "completed" ? outcome.assistant?.text : undefined;
    // The loop describes a failed commit by its message only: a refused write is a conflict.
    const error =
      outcome.reason === "failed" && this.#conflict !== undefined
        ? describeRunError(this.#conflict)
        : outcome.error;
    return {
      reason: outcome.reason,
      ...(error === undefined ? {} : { error }),
      ...(finalText === undefined ? {} : { finalText }),
    };
  }

  async #compactManually(plan: CompactPlan, sink: RunSink): Promise<PlanResult> {
    const { history } = this.#owner.state.head;
    // Summarise a copy that already holds the turn's closing results, so the whole summarize turn
    // is one transaction (the new epoch) or nothing. The fork copies the digests and the results
    // carry theirs: the history is not hashed again (the summary is, once, when the fork itself
    // moves to the new epoch after the head did).
    let working = history;
    if (plan.appended.length > 0) {
      working = history.fork();
      working.append(plan.appended);
    }
    sink.event({ type: "compaction.started", reason: "manual" });
    const result = await this.#compactor(
      this.#provider("summarizer"),
      sink,
    )({
      reason: "manual",
      trigger: "manual",
      history: working,
      current: [],
      signal: this.#signal,
    });
    if (result.usage !== undefined) this.#addUsage(result.usage, sink);
    this.#options.metrics.increment("cursor_gateway_compactions_total", { reason: "manual" });
    sink.event({ type: "compaction", reason: "manual", epoch: result.epoch });
    return { reason: "completed" };
  }

  /**
   * A write the store refused because the conversation moved (another process took it over):
   * remembered, for the loop reports a failed commit by its message only.
   */
  async #noteConflict<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } catch (error) {
      if (StoreError.isInstance(error) && error.reason === "head-moved") this.#conflict = error;
      throw error;
    }
  }

  /** The conversation compactor, persisting each new epoch through the writer. */
  #compactor(
    provider: ProviderAdapter,
    sink: RunSink,
  ): (request: CompactionRequest) => Promise<CompactionResult> {
    const persistEpoch: PersistEpoch = async (epoch) => {
      const after = await this.#noteConflict(
        this.#writer.startEpoch({
          epoch: epoch.epoch,
          messages: epoch.messages,
          digests: epoch.digests,
          headDigest: epoch.headDigest,
          length: epoch.messages.length,
        }),
      );
      this.#emitHead(sink, after, false);
      this.#calls.committed();
    };
    return createConversationCompactor({
      provider,
      conversationId: this.#owner.state.conversationId,
      cacheScope: this.#cacheScope,
      model: this.#providerModel,
      persistEpoch,
    });
  }

  #forward(event: ModelLoopEvent, sink: RunSink): void {
    switch (event.type) {
      case "text.delta":
      case "reasoning.delta":
        sink.event({ type: event.type, text: event.data.text });
        return;
      case "tool.call":
        sink.event({ type: "tool.call", ...event.data });
        return;
      case "usage":
        this.#addUsage(event.data, sink);
        return;
      case "compaction.started":
        sink.event({ type: "compaction.started", reason: event.data.reason });
        return;
      case "compaction":
        sink.event({ type: "compaction", ...event.data });
        return;
      case "warning":
        sink.event({ type: "warning", warning: event.data });
        return;
      case "retry": {
        const { attempt, delayMs, error } = event.data;
        this.#calls.retrying(delayMs);
        sink.event({
          type: "retry",
          attempt,
          delayMs,
          error: { code: error.code, message: error.message },
        });
        return;
      }
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown loop event ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  #addUsage(usage: Usage, sink: RunSink): void {
    // Token metrics are counted per provider call by the call recorder (summariser calls too).
    this.#owner.dispatch({ type: "usage-added", usage });
    sink.event({ type: "usage", usage });
  }

  #emitHead(sink: RunSink, state: HeadState, final: boolean): void {
    sink.event({
      type: "head",
      head: state.head,
      pendingToolCalls: state.head.history.pendingToolCalls(),
      promptSpecDigest: this.#promptSpec.digest,
      final,
    });
  }

  /**
   * The entry's adapter for the loop's model calls or the compactor's summariser calls: every
   * call is recorded (usage record, provider-request log, metrics).
   */
  #provider(kind: "model" | "summarizer"): ProviderAdapter {
    return this.#calls.wrap({
      // What comes back is redacted before the loop (and so the history) sees it.
      adapter: redactingProvider({ adapter: this.#adapter, redactor: this.#redactor }),
      kind,
      epoch: () => this.#owner.state.head.history.epoch,
    });
  }
}

/**
 * A store write refused because the conversation moved meanwhile (another gateway process took
 * it over after this one lost its run lease) is a conflict the client resolves by retrying: the
 * retry runs on the head as stored. Everything else is the loop's own classification.
 */
function describeRunError(thrown: unknown): LoopError {
  if (StoreError.isInstance(thrown) && thrown.reason === "head-moved") {
    return { code: "conflict", message: thrown.message, retryable: true };
  }
  return describeLoopError(thrown);
}
