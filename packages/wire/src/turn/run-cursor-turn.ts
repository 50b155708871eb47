import type { ConversationHead } from "@cursor/projection";
import { messageIdPrefixes } from "@cursor/run";
import type { PendingToolCall, Usage } from "@cursor/run";
import { ConnectError } from "../connect/connect-error.js";
import type { AgentRunRequest } from "../gen/agent_v1_pb.js";
import type {
  AgentRunRequestJson,
  HydratedHeadLike,
  WireModel,
  WireRunEvent,
  WireRunOutcome,
} from "../ports.js";
import { snapshotHead } from "../state/head-snapshot.js";
import type { HeadSnapshot } from "../state/head-snapshot.js";
import { hydrateConversationState } from "../state/hydrate-conversation-state.js";
import { ClientBlobSource } from "../translate/client-blob-source.js";
import { checkedBody, translateRunRequest } from "../translate/translate-run-request.js";
import type { TranslatedRunRequest } from "../translate/translate-run-request.js";
import { interactionUpdates } from "../updates/interaction-updates.js";
import { toolCallDisplay } from "../updates/tool-call-display.js";
import { CheckpointPublisher } from "./checkpoint-publisher.js";
import { cancelledError, connectErrorFromPrepare, connectErrorFromRun } from "./map-errors.js";
import { OrderedOutput } from "./ordered-output.js";
import type { ToolRoundCall } from "./tool-bridge.js";
import type { CursorTurnDeps, CursorTurnStream } from "./turn-context.js";

/** Tool rounds one Cursor turn may run before it stops and hands back to the user. */
export const defaultMaxToolRounds = 25;

function assistantRunId(assistantId: string): string | undefined {
  if (!assistantId.startsWith(messageIdPrefixes.assistant)) return undefined;
  const rest = assistantId.slice(messageIdPrefixes.assistant.length);
  const colon = rest.lastIndexOf(":");
  return colon <= 0 ? undefined : rest.slice(0, colon);
}

type ExecuteOutcome = WireRunOutcome & { readonly runId: string };

interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/**
 * One Cursor turn on one run stream: translate the run request, run it through the
 * conversation service, stream its events as `interaction_update`s and its heads as
 * checkpoints (each after its KV barrier), run tool rounds through the bridge and continue with
 * `tool-results` under the same run id, then `turn_ended`. Resolves with the error to end the
 * stream with, or `undefined` for a clean end.
 */
export async function runCursorTurn({
  runRequest,
  stream,
  deps,
}: {
  runRequest: AgentRunRequest;
  stream: CursorTurnStream;
  deps: CursorTurnDeps;
}): Promise<ConnectError | undefined> {
  try {
    const { ports } = deps;
    const blobs = new ClientBlobSource({ prefetched: runRequest.preFetchedBlobs, kv: stream.kv });
    const translated = await translateRunRequest({
      runRequest,
      requestId: stream.requestId,
      models: ports.models(),
      blobs,
    });
    const { conversationId } = translated;
    for (const warning of translated.warnings) {
      ports.logger.warn(
        { conversationId, what: warning.what, reason: warning.reason },
        "part of the Cursor request context was not translated",
      );
    }
    await stream.claimConversation(conversationId);
    if (translated.action.kind === "cancel") {
      ports.cancel(conversationId);
      const reason = translated.action.reason.trim();
      return cancelledError(`cancelled by the client${reason === "" ? "" : `: ${reason}`}`);
    }
    const turn = new CursorTurn({ runRequest, stream, deps, translated, blobs });
    return await turn.run();
  } catch (error) {
    return ConnectError.isInstance(error) ? error : connectErrorFromPrepare(error);
  }
}

class CursorTurn {
  readonly #runRequest: AgentRunRequest;
  readonly #stream: CursorTurnStream;
  readonly #deps: CursorTurnDeps;
  readonly #translated: TranslatedRunRequest;
  readonly #blobs: ClientBlobSource;
  readonly #controller = new AbortController();
  readonly #output: OrderedOutput;
  readonly #checkpoints: CheckpointPublisher;
  readonly #totals: UsageTotals = {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
  #hydrated: Promise<HydratedHeadLike | undefined> | undefined;
  #lastUsage: Usage | undefined;
  #runId: string | undefined;
  #pass = 0;
  #thinkingSince: number | undefined;
  #latestHead: { head: ConversationHead; pendingToolCalls: readonly PendingToolCall[] } | undefined;
  #toolCalls: ToolRoundCall[] = [];
  #pendingSummaryEpoch: number | undefined;
  /** A `summary_started` was sent for a compaction whose `compaction` event has not come yet. */
  #summaryOpen = false;

  constructor({
    runRequest,
    stream,
    deps,
    translated,
    blobs,
  }: {
    runRequest: AgentRunRequest;
    stream: CursorTurnStream;
    deps: CursorTurnDeps;
    translated: TranslatedRunRequest;
    blobs: ClientBlobSource;
  }) {
    this.#runRequest = runRequest;
    this.#stream = stream;
    this.#deps = deps;
    this.#translated = translated;
    this.#blobs = blobs;
    this.#output = new OrderedOutput((message) => stream.send(message));
    this.#checkpoints = new CheckpointPublisher({
      runRequest,
      stream,
      deps,
      translated,
      blobs,
    });
    if (stream.signal.aborted) this.#controller.abort(stream.signal.reason);
    else {
      stream.signal.addEventListener("abort", () => this.#controller.abort(stream.signal.reason), {
        once: true,
      });
    }
  }

  get #conversationId(): string {
    return this.#translated.conversationId;
  }

  get #model(): WireModel {
    return this.#translated.model;
  }

  async run(): Promise<ConnectError | undefined> {
    try {
      // Blobs the client attached or answered: it holds them, they need not be sent back.
      await this.#checkpoints.recordReceived();
      let body = this.#translated.body;
      if (this.#translated.action.kind === "resume") {
        const resumed = await this.#resumeBody();
        if (resumed === "nothing-pending") return this.#endTurn();
        if (resumed === "cancelled") return cancelledError(this.#cancelReason());
        body = resumed;
      }
      if (body === undefined) throw new Error("no body for this action");
      let rounds = 0;
      for (;;) {
        const outcome = await this.#execute(body);
        await this.#output.flush();
        await this.#checkpoints.recordReceived();
        switch (outcome.reason) {
          case "completed":
            return this.#endTurn();
          case "cancelled":
            return cancelledError(this.#cancelReason());
          case "failed":
            return connectErrorFromRun(outcome.error);
          case "awaiting-tools": {
            if (rounds >= this.#deps.maxToolRounds) {
              this.#output.send(
                interactionUpdates.textDelta(
                  `\n\n[Stopped after ${rounds} tool rounds; send a message to continue.]`,
                  { serverNotice: true },
                ),
              );
              return this.#endTurn();
            }
            rounds += 1;
            const next = await this.#toolRound(outcome.runId);
            if (next === undefined) return cancelledError(this.#cancelReason());
            body = next;
            continue;
          }
          default: {
            const exhaustive: never = outcome.reason;
            throw new Error(`unknown end reason ${String(exhaustive)}`);
          }
        }
      }
    } catch (error) {
      return ConnectError.isInstance(error) ? error : connectErrorFromPrepare(error);
    }
  }

  #cancelReason(): string {
    const reason: unknown = this.#controller.signal.reason;
    return reason instanceof Error ? reason.message : "the run was cancelled";
  }

  #hydrate(): (() => Promise<HydratedHeadLike>) | undefined {
    const state = this.#runRequest.conversationState;
    if (state === undefined || state.rootPromptMessagesJson.length === 0) return undefined;
    return async () => {
      this.#hydrated ??= hydrateConversationState({
        state,
        conversationId: this.#conversationId,
        secret: this.#deps.ports.checkpointSecret,
        blobs: this.#blobs,
      });
      const head = await this.#hydrated;
      if (head === undefined) throw new Error("the conversation state is empty");
      return head;
    };
  }

  async #execute(body: AgentRunRequestJson): Promise<ExecuteOutcome> {
    const hydrate = this.#hydrate();
    let prepared;
    try {
      prepared = await this.#deps.ports.prepareRun({
        body,
        ...(hydrate === undefined ? {} : { hydrate }),
        signal: this.#controller.signal,
      });
    } catch (error) {
      throw connectErrorFromPrepare(error);
    }
    this.#toolCalls = [];
    const outcome = await prepared.execute({ event: (event) => this.#onEvent(event) });
    this.#finishThinking();
    if (this.#pendingSummaryEpoch !== undefined || this.#summaryOpen) {
      // The compaction's head never came (or it failed): close the summary block without text.
      this.#pendingSummaryEpoch = undefined;
      this.#summaryOpen = false;
      this.#output.send(interactionUpdates.summaryCompleted());
    }
    return { ...outcome, runId: this.#runId ?? body.runId };
  }

  #onEvent(event: WireRunEvent): void {
    try {
      this.#handle(event);
    } catch (error) {
      this.#deps.ports.logger.error(
        { conversationId: this.#conversationId, event: event.type, err: String(error) },
        "could not translate a run event",
      );
    }
  }

  #handle(event: WireRunEvent): void {
    const output = this.#output;
    switch (event.type) {
      case "run.started":
        this.#runId = event.runId;
        return;
      case "reasoning.delta":
        this.#thinkingSince ??= this.#deps.timers.now();
        output.send(interactionUpdates.thinkingDelta(event.text));
        return;
      case "text.delta":
        this.#finishThinking();
        output.send(interactionUpdates.textDelta(event.text));
        return;
      case "tool.call": {
        this.#finishThinking();
        this.#toolCalls.push({
          callId: event.callId,
          name: event.name,
          arguments: event.arguments,
        });
        const toolCall = toolCallDisplay(event);
        // A call the IDE has no ToolCall variant for is not shown (an empty one may not render).
        if (toolCall === undefined) return;
        output.send(
          interactionUpdates.partialToolCall({
            callId: event.callId,
            toolCall,
            argsTextDelta: event.arguments,
            modelCallId: this.#modelCallId(),
          }),
        );
        return;
      }
      case "usage":
        this.#finishThinking();
        this.#addUsage(event.usage);
        this.#pass += 1;
        return;
      case "compaction.started":
        // Before the summariser call, which can take a while: the IDE shows it is summarising.
        this.#finishThinking();
        this.#summaryOpen = true;
        output.send(interactionUpdates.summaryStarted());
        return;
      case "compaction":
        if (!this.#summaryOpen) output.send(interactionUpdates.summaryStarted());
        this.#summaryOpen = false;
        this.#pendingSummaryEpoch = event.epoch;
        this.#sendSummaryIfReady();
        return;
      case "warning":
        this.#deps.ports.logger.warn(
          {
            conversationId: this.#conversationId,
            kind: event.warning.type,
            path: event.warning.path,
          },
          event.warning.message,
        );
        return;
      case "retry":
        return;
      case "head":
        this.#latestHead = { head: event.head, pendingToolCalls: event.pendingToolCalls };
        this.#sendSummaryIfReady();
        this.#queueCheckpoint(snapshotHead(event.head, event.pendingToolCalls));
        return;
      case "run.ended":
        this.#finishThinking();
        return;
      default: {
        const exhaustive: never = event;
        throw new Error(`unknown run event ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  #modelCallId(): string {
    return `${this.#runId ?? "run"}:${this.#pass}`;
  }

  #finishThinking(): void {
    if (this.#thinkingSince === undefined) return;
    const duration = this.#deps.timers.now() - this.#thinkingSince;
    this.#thinkingSince = undefined;
    this.#output.send(interactionUpdates.thinkingCompleted(duration));
  }

  #addUsage(usage: Usage): void {
    this.#lastUsage = usage;
    // The four counts of turn_ended partition the input: uncached + cache read + cache write.
    this.#totals.inputTokens += Math.max(
      0,
      usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens,
    );
    this.#totals.cacheReadTokens += usage.cachedInputTokens;
    this.#totals.cacheWriteTokens += usage.cacheWriteTokens;
    this.#totals.outputTokens += usage.outputTokens;
  }

  #sendSummaryIfReady(): void {
    const epoch = this.#pendingSummaryEpoch;
    const head = this.#latestHead?.head;
    if (epoch === undefined || head === undefined || head.history.epoch < epoch) return;
    this.#pendingSummaryEpoch = undefined;
    const summary = head.history.messages.find((message) => message.kind === "summary");
    if (summary?.kind === "summary") this.#output.send(interactionUpdates.summary(summary.text));
    this.#output.send(interactionUpdates.summaryCompleted());
  }

  #queueCheckpoint(head: HeadSnapshot): void {
    this.#output.step(
      () => this.#checkpoints.publish({ head, runId: this.#runId, lastUsage: this.#lastUsage }),
      // A failed barrier fails the turn: stop the run, nothing more is published.
      (error) => this.#controller.abort(error),
    );
  }

  /** Runs one tool round through the bridge; the `tool-results` request that continues the run. */
  async #toolRound(runId: string): Promise<AgentRunRequestJson | undefined> {
    const pending =
      this.#latestHead?.pendingToolCalls.filter(
        (call) => assistantRunId(call.assistantId) === runId,
      ) ?? [];
    const calls: readonly ToolRoundCall[] =
      pending.length > 0
        ? pending.map((call) => ({
            callId: call.callId,
            name: call.name,
            arguments: call.arguments,
          }))
        : this.#toolCalls;
    if (calls.length === 0) throw new Error(`run ${runId} awaits tools but none are pending`);
    return this.#runRound(runId, calls);
  }

  async #runRound(
    runId: string,
    calls: readonly ToolRoundCall[],
  ): Promise<AgentRunRequestJson | undefined> {
    const bridge = this.#deps.toolBridge({
      conversationId: this.#conversationId,
      runId,
      send: (message) => this.#output.send(message),
      signal: this.#controller.signal,
    });
    this.#stream.attachToolBridge(bridge);
    const modelCallId = this.#modelCallId();
    for (const call of calls) {
      const toolCall = toolCallDisplay(call);
      if (toolCall === undefined) continue;
      this.#output.send(
        interactionUpdates.toolCallStarted({ callId: call.callId, toolCall, modelCallId }),
      );
    }
    // A cancelled run does not wait for a bridge that ignores its signal.
    const results = await raceAbort(bridge.runRound(calls), this.#controller.signal);
    if (results === undefined || this.#controller.signal.aborted) return undefined;
    const byId = new Map(results.map((result) => [result.callId, result]));
    for (const call of calls) {
      const toolCall = toolCallDisplay({ ...call, result: byId.get(call.callId) });
      if (toolCall === undefined) continue;
      this.#output.send(
        interactionUpdates.toolCallCompleted({ callId: call.callId, toolCall, modelCallId }),
      );
    }
    return checkedBody({
      conversationId: this.#conversationId,
      runId,
      mode: this.#translated.mode,
      model: this.#model.id,
      action: {
        type: "tool-results",
        results: results.map((result) => ({
          callId: result.callId,
          output: result.output,
          ...(result.isError ? { isError: true } : {}),
        })),
      },
    });
  }

  /** `resume_action`: continue the conversation's pending tool round, if it has one. */
  async #resumeBody(): Promise<AgentRunRequestJson | "nothing-pending" | "cancelled"> {
    const { ports } = this.#deps;
    if (ports.head === undefined) {
      throw new ConnectError({
        code: "unimplemented",
        message: "resume_action needs the gateway's head port",
      });
    }
    const stored = await ports.head(this.#conversationId);
    const hydrate = this.#hydrate();
    const history =
      stored?.history ?? (hydrate === undefined ? undefined : (await hydrate()).history);
    if (history === undefined) {
      throw new ConnectError({
        code: "not_found",
        message: `conversation ${this.#conversationId} not found`,
      });
    }
    const pending = history.pendingToolCalls();
    const first = pending[0];
    if (first === undefined) return "nothing-pending";
    const runId = assistantRunId(first.assistantId);
    if (runId === undefined) throw new Error(`pending call ${first.callId} has no run`);
    this.#runId = runId;
    const calls = pending
      .filter((call) => call.assistantId === first.assistantId)
      .map((call) => ({ callId: call.callId, name: call.name, arguments: call.arguments }));
    return (await this.#runRound(runId, calls)) ?? "cancelled";
  }

  async #endTurn(): Promise<ConnectError | undefined> {
    this.#output.send(interactionUpdates.turnEnded(this.#totals));
    await this.#output.flush();
    return undefined;
  }
}

/** `promise`'s value, or `undefined` as soon as `signal` aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
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
