import { randomUUID } from "node:crypto";
import { RunCancelledError, describeLoopError } from "@cursor/run";
import type { ProviderAdapter, ProviderEvent, StreamOptions, Usage } from "@cursor/run";
import { detectProviderFormat } from "../diagnostics/provider-body.js";
import { providerHistoryItems } from "../providers/provider-history-items.js";
import { capText, recordTextLimits } from "../store/provider-call-store.js";
import type {
  ProviderCallKind,
  ProviderCallOutcome,
  ProviderCallRecord,
} from "../store/provider-call-store.js";
import { comparePrefix } from "./compare-prefix.js";
import type { PrefixVerdict } from "./compare-prefix.js";
import type { UsageRecorderContext } from "./usage-recorder-context.js";

/** A call the gateway handed to a provider adapter. */
interface StartedCall {
  readonly callId: string;
  readonly kind: ProviderCallKind;
  /** The adapter's id: the body's wire format. */
  readonly api: string;
  readonly attempt: number;
  readonly epoch: number;
  readonly model: string;
  readonly body: unknown;
  readonly startedAt: number;
  /** `performance.now()` when the adapter's `stream` was called. */
  readonly t0: number;
  /** The gateway's own time before the call (ms). */
  readonly beforeMs: number;
}

/** A call whose provider stream ended. */
interface EndedCall extends StartedCall {
  readonly endedAt: number;
  readonly firstOutputAt: number | undefined;
  readonly usage: Usage | undefined;
  readonly outcome: ProviderCallOutcome;
  readonly error: unknown;
}

const isOutput = (event: ProviderEvent) =>
  event.type === "text-delta" || event.type === "reasoning-delta" || event.type === "tool-call";

/**
 * The usage records of one run execution's provider calls. Wraps the adapter the model loop and
 * the compactor call, times each call, and hands the records to the store in call order when the
 * run is over (`flush`): the prompt comparison and the writes never hold up the answer.
 *
 * Timings (`performance.now()`, ms):
 * - time to first token: from the adapter's `stream` call to its first text, reasoning or
 *   tool-call event;
 * - duration: from the `stream` call to the end of the provider stream (its last event, error
 *   or cancellation);
 * - gateway overhead: the gateway's own time around the call: before it, from the moment the
 *   gateway started working toward it (the front door handing the request to the service, the
 *   previous call's result stored, or a retry's backoff over) to the `stream` call (head load,
 *   turn planning, projection, serialisation); after it, from the stream's end to the moment its
 *   result was stored (the turn's messages, or a compaction's new epoch). A failed call has no
 *   after part.
 */
export class RunCallRecorder {
  readonly #context: UsageRecorderContext;
  readonly #tenant: string;
  readonly #conversationId: string;
  readonly #runId: string;
  readonly #provider: string;
  readonly #catalogModel: string;
  /** Where the gateway's own time toward the next call started. */
  #ready: number;
  #attempt = 1;
  #pending: EndedCall | undefined;
  /** Complete records, in call order, not handed to the store yet (`flush` writes them). */
  #unwritten: { readonly call: EndedCall; readonly overheadMs: number }[] = [];
  /** Once flushed, a record completes straight into the store (a cancelled call's, late). */
  #flushed = false;
  /** The writes handed to the store, one after the other. */
  #chain: Promise<void> = Promise.resolve();

  constructor({
    context,
    tenant,
    conversationId,
    runId,
    provider,
    catalogModel,
    acceptedAt,
  }: {
    context: UsageRecorderContext;
    tenant: string;
    conversationId: string;
    runId: string;
    /** The catalog entry's provider. */
    provider: string;
    catalogModel: string;
    /** `performance.now()` when the front door handed the request to the service. */
    acceptedAt: number;
  }) {
    this.#context = context;
    this.#tenant = tenant;
    this.#conversationId = conversationId;
    this.#runId = runId;
    this.#provider = provider;
    this.#catalogModel = catalogModel;
    this.#ready = acceptedAt;
  }

  /** `adapter`, recording every call it makes as `kind`; `epoch` reads the conversation's epoch. */
  wrap({
    adapter,
    kind,
    epoch,
  }: {
    adapter: ProviderAdapter;
    kind: ProviderCallKind;
    epoch: () => number;
  }): ProviderAdapter {
    return {
      id: adapter.id,
      serialize: (request) => adapter.serialize(request),
      stream: (request, options) => {
        const t0 = performance.now();
        // A call not stored yet (nothing was committed since): its after part ends here.
        if (this.#pending !== undefined) this.#finish(this.#pending, t0);
        // Serialised once: the adapter sends this very body (`serialized`), the record keeps it.
        const serialized = adapter.serialize(request);
        const body = serialized.body;
        const call: StartedCall = {
          callId: randomUUID(),
          kind,
          api: adapter.id,
          attempt: this.#attempt,
          epoch: epoch(),
          model: request.model,
          body,
          startedAt: this.#context.now().getTime(),
          t0,
          beforeMs: Math.max(0, t0 - this.#ready),
        };
        this.#context.requestLog.record({
          key: this.#context.conversationKey(this.#tenant, this.#conversationId),
          provider: adapter.id,
          request,
          adapter,
          at: new Date(call.startedAt),
          callId: call.callId,
        });
        return this.#observe({ adapter, call, request, options: { ...options, serialized } });
      },
    };
  }

  async *#observe({
    adapter,
    call,
    request,
    options,
  }: {
    adapter: ProviderAdapter;
    call: StartedCall;
    request: Parameters<ProviderAdapter["stream"]>[0];
    options: StreamOptions | undefined;
  }): AsyncIterable<ProviderEvent> {
    let firstOutputAt: number | undefined;
    let usage: Usage | undefined;
    let completed = false;
    let failure: unknown;
    try {
      for await (const event of adapter.stream(request, options)) {
        if (firstOutputAt === undefined && isOutput(event)) firstOutputAt = performance.now();
        if (event.type === "usage") usage = event.usage;
        yield event;
      }
      completed = true;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      const cancelled =
        !completed &&
        (failure === undefined ||
          options?.signal?.aborted === true ||
          RunCancelledError.isInstance(failure));
      this.#ended({
        ...call,
        endedAt: performance.now(),
        firstOutputAt,
        usage,
        outcome: completed ? "ok" : cancelled ? "cancelled" : "failed",
        error: failure,
      });
    }
  }

  #ended(call: EndedCall): void {
    const { metrics } = this.#context;
    const labels = { provider: this.#provider, model: this.#catalogModel };
    metrics.increment("cursor_gateway_provider_calls_total", { ...labels, outcome: call.outcome });
    metrics.observe(
      "cursor_gateway_provider_call_duration_seconds",
      { ...labels, outcome: call.outcome },
      (call.endedAt - call.t0) / 1000,
    );
    if (call.firstOutputAt !== undefined) {
      metrics.observe(
        "cursor_gateway_time_to_first_token_seconds",
        labels,
        (call.firstOutputAt - call.t0) / 1000,
      );
    }
    if (call.usage !== undefined) {
      const { usage } = call;
      const write1h = Math.min(usage.cacheWrite1hTokens ?? 0, usage.cacheWriteTokens);
      metrics.increment("cursor_gateway_input_tokens_total", labels, usage.inputTokens);
      metrics.increment(
        "cursor_gateway_cached_input_tokens_total",
        labels,
        usage.cachedInputTokens,
      );
      metrics.increment(
        "cursor_gateway_cache_write_tokens_total",
        { ...labels, ttl: "5m" },
        usage.cacheWriteTokens - write1h,
      );
      if (write1h > 0) {
        metrics.increment(
          "cursor_gateway_cache_write_tokens_total",
          { ...labels, ttl: "1h" },
          write1h,
        );
      }
      metrics.increment("cursor_gateway_output_tokens_total", labels, usage.outputTokens);
    }
    if (call.outcome === "ok") {
      // Its after part runs until its result is stored (`committed`).
      this.#pending = call;
    } else {
      this.#finish(call, call.endedAt);
    }
  }

  /** The result of the last call is stored: its record is complete. */
  committed(): void {
    if (this.#pending === undefined) return;
    this.#finish(this.#pending, performance.now());
    this.#attempt = 1;
  }

  /** The loop retries the last call after `delayMs`: the next call is its next attempt. */
  retrying(delayMs: number): void {
    this.#attempt += 1;
    this.#ready = performance.now() + delayMs;
  }

  /**
   * Completes what is pending and writes the run's records, in call order. Called once the run's
   * answer is out: comparing prompts and writing records are not on the answer's path.
   */
  async flush(): Promise<void> {
    if (this.#pending !== undefined) this.#finish(this.#pending, performance.now());
    this.#flushed = true;
    for (const { call, overheadMs } of this.#unwritten.splice(0)) this.#store(call, overheadMs);
    await this.#chain;
  }

  /** Hands a record to the store after the ones before it. */
  #store(call: EndedCall, overheadMs: number): void {
    // Each record compares its prompt with the stored one before it: one at a time, in order.
    this.#chain = this.#chain.then(() =>
      this.#write(call, overheadMs).catch((error: unknown) =>
        this.#context.logger.error(
          {
            err: this.#context.redact(String(error)),
            conversationId: this.#conversationId,
            callId: call.callId,
          },
          "could not store a provider call's usage record",
        ),
      ),
    );
  }

  #finish(call: EndedCall, doneAt: number): void {
    if (this.#pending === call) this.#pending = undefined;
    const afterMs = call.outcome === "ok" ? Math.max(0, doneAt - call.endedAt) : 0;
    const overheadMs = call.beforeMs + afterMs;
    this.#context.metrics.observe(
      "cursor_gateway_overhead_seconds",
      { provider: this.#provider, model: this.#catalogModel },
      overheadMs / 1000,
    );
    this.#ready = Math.max(this.#ready, doneAt);
    // A call the run gave up on (cancelled) may end after the run's flush: stored at once.
    if (this.#flushed) this.#store(call, overheadMs);
    else this.#unwritten.push({ call, overheadMs });
  }

  async #write(call: EndedCall, overheadMs: number): Promise<void> {
    const { store, redact } = this.#context;
    const verdict = await this.#verdict(call);
    const error =
      call.outcome === "failed"
        ? (() => {
            const described = describeLoopError(call.error);
            return {
              code: described.code,
              message: capText(redact(described.message), recordTextLimits.errorMessage),
              retryable: described.retryable,
            };
          })()
        : undefined;
    const record: ProviderCallRecord = {
      callId: call.callId,
      tenant: this.#tenant,
      conversationId: this.#conversationId,
      runId: this.#runId,
      kind: call.kind,
      attempt: call.attempt,
      epoch: call.epoch,
      startedAt: call.startedAt,
      provider: this.#provider,
      model: call.model,
      catalogModel: this.#catalogModel,
      outcome: call.outcome,
      ...(error === undefined ? {} : { error }),
      ...(call.usage === undefined
        ? {}
        : {
            usage: {
              inputTokens: call.usage.inputTokens,
              cachedInputTokens: call.usage.cachedInputTokens,
              cacheWriteTokens: call.usage.cacheWriteTokens,
              ...(call.usage.cacheWrite1hTokens === undefined
                ? {}
                : { cacheWrite1hTokens: call.usage.cacheWrite1hTokens }),
              outputTokens: call.usage.outputTokens,
            },
          }),
      ...(call.firstOutputAt === undefined
        ? {}
        : { timeToFirstTokenMs: call.firstOutputAt - call.t0 }),
      durationMs: call.endedAt - call.t0,
      gatewayOverheadMs: overheadMs,
      prefix: verdict.prefix,
      ...(verdict.divergenceView === undefined ? {} : { divergenceView: verdict.divergenceView }),
      process: this.#context.process,
    };
    await store.record(record);
  }

  async #verdict(call: EndedCall): Promise<PrefixVerdict> {
    if (call.kind === "summarizer") {
      return {
        prefix: { status: "not-compared", historyItems: providerHistoryItems(call.body).length },
      };
    }
    const format = detectProviderFormat(call.body, call.api) ?? "openai-responses";
    const key = this.#context.conversationKey(this.#tenant, this.#conversationId);
    const previous = await this.#context.store.lastModelCall({
      tenant: this.#tenant,
      conversationId: this.#conversationId,
    });
    return comparePrefix({
      callId: call.callId,
      body: call.body,
      format,
      epoch: call.epoch,
      previous,
      previousBody: () =>
        previous === undefined ? undefined : this.#context.requestLog.body(key, previous.callId),
      redact: this.#context.redact,
    });
  }
}
