import { encodeCheckpoint } from "@cursor/checkpoint";
import { createConversationHead, headToCheckpointState, recordTurnPlan } from "@cursor/projection";
import type { TurnPlan, TurnRecord } from "@cursor/projection";
import { renderSummaryText, summarizerInstructions } from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import {
  HistoryLog,
  RunCancelledError,
  chainHeadDigest,
  contextBudget,
  createCompactor,
  describeLoopError,
  messageDigest,
  runModelLoop,
  sha256Hex,
} from "@cursor/run";
import type {
  CanonicalMessage,
  CommitBatch,
  JsonValue,
  LoopError,
  PersistEpoch,
  PromptSpec,
  Usage,
} from "@cursor/run";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import type { ConversationState } from "./conversation-state.js";
import { conversationKey } from "./conversation-state.js";
import type { SseStream } from "./http/sse-stream.js";
import type { ProviderRequestLog } from "./providers/provider-request-log.js";
import { recordingProvider } from "./providers/recording-provider.js";
import { redactSecrets } from "./redact-secrets.js";
import type { HeadVersion, RunStatus, UsageTotals } from "./store/gateway-store.js";

type EndReason = "completed" | "awaiting-tools" | "cancelled" | "failed";

interface ExecuteRunInput {
  readonly options: ConversationServiceOptions;
  readonly requestLog: ProviderRequestLog;
  readonly state: ConversationState;
  readonly request: AgentRunRequest;
  readonly plan: TurnPlan;
  readonly promptSpec: PromptSpec;
  readonly stream: SseStream;
  readonly signal: AbortSignal;
}

/**
 * Runs one accepted request to its end on the SSE stream: `run.started`, the model loop's
 * events, `checkpoint`, and `run.ended` exactly once, last. Every store write is one
 * transaction; a failed or cancelled model call writes nothing.
 */
export async function executeRun(input: ExecuteRunInput): Promise<void> {
  const { state, request, stream, options } = input;
  stream.send("run.started", {
    conversationId: request.conversationId,
    runId: request.runId,
    epoch: state.head.history.epoch,
  });
  let reason: EndReason = "failed";
  let error: LoopError | undefined;
  let finalText: string | undefined;
  try {
    const outcome = await runPlan(input);
    reason = outcome.reason;
    error = outcome.error;
    finalText = outcome.finalText;
  } catch (thrown) {
    const cancelled = input.signal.aborted || RunCancelledError.isInstance(thrown);
    reason = cancelled ? "cancelled" : "failed";
    error = cancelled ? undefined : describeLoopError(thrown);
    if (!cancelled) {
      options.logger.error(
        {
          err: redactSecrets(String(thrown), options.secrets),
          conversationId: request.conversationId,
        },
        "run failed",
      );
    }
  }
  if (error !== undefined)
    error = { ...error, message: redactSecrets(error.message, options.secrets) };
  try {
    await saveRun(input, { status: reason, error, finalText });
    if (state.version !== null) {
      stream.send("checkpoint", {
        checkpoint: encodeHeadCheckpoint(input),
        epoch: state.head.history.epoch,
        messages: state.head.history.length,
      });
    }
  } catch (thrown) {
    options.logger.error({ err: thrown }, "could not record the end of the run");
  }
  options.metrics.increment("cursor_gateway_runs_total", { reason });
  stream.send("run.ended", { reason, ...(error === undefined ? {} : { error }) });
}

async function runPlan(
  input: ExecuteRunInput,
): Promise<{ reason: EndReason; error?: LoopError; finalText?: string }> {
  const { state, plan, stream } = input;
  if (plan.alreadyCompleted) {
    await recordAcceptedRun(input);
    const stored = await input.options.store.getRun(state.tenant, state.conversationId, plan.runId);
    if (stored?.finalText) stream.send("text.delta", { text: stored.finalText });
    return {
      reason: "completed",
      ...(stored?.finalText === undefined ? {} : { finalText: stored.finalText }),
    };
  }
  if (plan.compaction === "manual") return compactManually(input);
  if (!plan.callModel) {
    if (plan.appended.length > 0 || plan.newTurns.length > 0) {
      await commitMessages(input, plan.appended, { withTurn: true, appendLocally: true });
    } else {
      await recordAcceptedRun(input);
    }
    // A retry of a run that stopped at tool calls: the client lost the stream that carried
    // them (that is why it retries), so they are sent again or it could never answer them.
    if (plan.retry) {
      for (const { callId, name, arguments: args } of plan.pendingToolCalls) {
        stream.send("tool.call", { callId, name, arguments: args });
      }
    }
    return { reason: plan.pendingToolCalls.length > 0 ? "awaiting-tools" : "completed" };
  }
  return runLoop(input);
}

/**
 * A request that appends nothing (a duplicate delivery, a retry) is still the conversation's
 * most recent accepted run request: `expectedRunId` of the next injection names it.
 */
async function recordAcceptedRun(input: ExecuteRunInput): Promise<void> {
  const { state, plan, options } = input;
  if (state.version === null || state.head.lastRunId === plan.acceptedRunId) return;
  await options.store.commit({
    tenant: state.tenant,
    conversationId: state.conversationId,
    expected: state.version,
    mode: "append",
    messages: [],
    digests: [],
    next: state.version,
    lastRunId: plan.acceptedRunId,
  });
  state.head = recordTurnPlan({ head: state.head, plan });
}

async function runLoop(
  input: ExecuteRunInput,
): Promise<{ reason: EndReason; error?: LoopError; finalText?: string }> {
  const { state, request, plan, options, stream } = input;
  let turnRecorded = false;
  const provider = providerFor(input);
  const outcome = await runModelLoop({
    conversationId: state.conversationId,
    runId: plan.runId,
    model: request.model ?? options.model,
    promptSpec: input.promptSpec,
    ...(plan.allowedTools === undefined ? {} : { allowedTools: plan.allowedTools }),
    history: state.head.history,
    // The loop commits only what is new (`history.check`); a retry's stored messages are no-ops.
    pending: plan.initialMessages,
    // What compaction keeps of this turn verbatim (its context and runtime messages).
    currentInitialMessages: plan.currentInitialMessages,
    provider,
    commit: async (batch: CommitBatch) => {
      await commitMessages(input, batch.messages, {
        withTurn: !turnRecorded,
        appendLocally: false,
      });
      turnRecorded = true;
    },
    compaction: {
      budgetTokens: contextBudget({ contextWindowTokens: options.contextWindow }),
      tokenAnchor: state.tokenAnchor,
      compact: createCompactor({
        provider,
        conversationId: state.conversationId,
        model: request.model ?? options.model,
        instructions: summarizerInstructions,
        formatSummary: renderSummaryText,
        persistEpoch: (epoch) =>
          persistEpoch(input, epoch, { withTurn: !turnRecorded }).then(() => {
            turnRecorded = true;
          }),
      }),
    },
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    signal: input.signal,
    onEvent: (event) => {
      if (event.type === "usage") addUsage(input, event.data);
      stream.send(event.type, event.data);
    },
  });
  if (outcome.tokenAnchor !== undefined) state.tokenAnchor = outcome.tokenAnchor;
  for (const compaction of outcome.compactions) {
    options.metrics.increment("cursor_gateway_compactions_total", { reason: compaction.trigger });
  }
  const finalText = outcome.reason === "completed" ? outcome.assistant?.text : undefined;
  return {
    reason: outcome.reason,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
    ...(finalText === undefined ? {} : { finalText }),
  };
}

async function compactManually(
  input: ExecuteRunInput,
): Promise<{ reason: EndReason; error?: LoopError }> {
  const { state, request, plan, options, stream } = input;
  const history = state.head.history;
  if (history.length + plan.appended.length === 0) return { reason: "completed" };
  // Summarise a copy that already holds the turn's closing results, so the whole summarize turn
  // is one transaction (the new epoch) or nothing.
  const working =
    plan.appended.length === 0
      ? history
      : new HistoryLog({ epoch: history.epoch, messages: [...history.messages, ...plan.appended] });
  const compact = createCompactor({
    provider: providerFor(input),
    conversationId: state.conversationId,
    model: request.model ?? options.model,
    instructions: summarizerInstructions,
    formatSummary: renderSummaryText,
    keepRequestContext: false,
    persistEpoch: (epoch) => persistEpoch(input, epoch, { withTurn: true }),
  });
  const result = await compact({
    reason: "manual",
    trigger: "manual",
    history: working,
    current: [],
    signal: input.signal,
  });
  if (working !== history) {
    state.head = createConversationHead({
      conversationId: state.conversationId,
      history: working,
      turns: state.head.turns,
      lastRunId: state.head.lastRunId,
    });
  }
  if (result.usage !== undefined) {
    addUsage(input, result.usage);
    stream.send("usage", result.usage);
  }
  options.metrics.increment("cursor_gateway_compactions_total", { reason: "manual" });
  stream.send("compaction", { reason: "manual", epoch: result.epoch });
  return { reason: "completed" };
}

function providerFor(input: ExecuteRunInput) {
  const { options, state, requestLog } = input;
  return recordingProvider({
    adapter: options.provider,
    onRequest: ({ body }) => {
      requestLog.record({
        key: conversationKey(state.tenant, state.conversationId),
        provider: options.provider.id,
        body,
        at: options.now?.() ?? new Date(),
      });
      options.metrics.increment("cursor_gateway_provider_calls_total", {
        provider: options.provider.id,
      });
    },
  });
}

function addUsage(input: ExecuteRunInput, usage: Usage): void {
  const { state, options } = input;
  state.usage = {
    inputTokens: state.usage.inputTokens + usage.inputTokens,
    cachedInputTokens: state.usage.cachedInputTokens + usage.cachedInputTokens,
    cacheWriteTokens: state.usage.cacheWriteTokens + usage.cacheWriteTokens,
    outputTokens: state.usage.outputTokens + usage.outputTokens,
  };
  const labels = { provider: options.provider.id };
  options.metrics.increment("cursor_gateway_input_tokens_total", labels, usage.inputTokens);
  options.metrics.increment(
    "cursor_gateway_cached_input_tokens_total",
    labels,
    usage.cachedInputTokens,
  );
  options.metrics.increment(
    "cursor_gateway_cache_write_tokens_total",
    labels,
    usage.cacheWriteTokens,
  );
  options.metrics.increment("cursor_gateway_output_tokens_total", labels, usage.outputTokens);
}

/**
 * Commits messages appended to the current epoch in one store transaction, with the turn's
 * records the first time. For a conversation resumed from a checkpoint, the hydrated history
 * is written in the same transaction. Only after it succeeded does the in-memory head move (the
 * model loop appends to the HistoryLog itself after this resolves).
 */
async function commitMessages(
  input: ExecuteRunInput,
  messages: readonly CanonicalMessage[],
  { withTurn, appendLocally }: { withTurn: boolean; appendLocally: boolean },
): Promise<void> {
  const { state } = input;
  const history = state.head.history;
  const seed = state.version === null ? state.seed : [];
  let headDigest = history.headDigest;
  const digests = messages.map((message) => {
    const digest = messageDigest(message);
    headDigest = chainHeadDigest(headDigest, digest);
    return digest;
  });
  await writeHead(input, {
    mode: "append",
    messages: [...seed, ...messages],
    digests: [...seed.map((_, index) => history.digestAt(index)!), ...digests],
    next: { epoch: history.epoch, headDigest, messageCount: history.length + messages.length },
    withTurn,
  });
  // The model loop appends what it committed itself; commits outside the loop append here.
  if (appendLocally) history.append(messages);
}

/** Persists a compaction's new epoch in one transaction (the compactor then switches the log). */
async function persistEpoch(
  input: ExecuteRunInput,
  epoch: Parameters<PersistEpoch>[0],
  { withTurn }: { withTurn: boolean },
): Promise<void> {
  const replay = new HistoryLog({ epoch: epoch.epoch, messages: epoch.messages });
  await writeHead(input, {
    mode: "new-epoch",
    messages: epoch.messages,
    digests: epoch.messages.map((_, index) => replay.digestAt(index)!),
    next: {
      epoch: epoch.epoch,
      headDigest: replay.headDigest,
      messageCount: epoch.messages.length,
    },
    withTurn,
  });
  input.state.tokenAnchor = undefined;
}

/**
 * The one store write of a turn's messages: guarded by the head the state was built from, with
 * the turn records (all of them when the conversation is first stored after a resume), the
 * accepted run and the prompt-spec input; then the in-memory state follows the store.
 */
async function writeHead(
  input: ExecuteRunInput,
  write: {
    mode: "append" | "new-epoch";
    messages: readonly CanonicalMessage[];
    digests: readonly string[];
    next: HeadVersion;
    withTurn: boolean;
  },
): Promise<void> {
  const { state, plan, options } = input;
  const turns: TurnRecord[] = [
    ...(state.version === null ? state.head.turns : []),
    ...(write.withTurn ? plan.newTurns : []),
  ];
  await options.store.commit({
    tenant: state.tenant,
    conversationId: state.conversationId,
    expected: state.version,
    mode: write.mode,
    messages: write.messages,
    digests: write.digests,
    next: write.next,
    turns: turns.map((turn) => ({ eventId: turn.eventId, record: turn })),
    ...promptSpecInputOf(input),
    ...(write.withTurn ? { lastRunId: plan.acceptedRunId } : {}),
  });
  state.version = write.next;
  state.seed = [];
  if (input.request.requestContext !== undefined) {
    state.mcpServers = input.request.requestContext.mcp?.servers;
  }
  if (write.withTurn) state.head = recordTurnPlan({ head: state.head, plan });
}

async function saveRun(
  input: ExecuteRunInput,
  {
    status,
    error,
    finalText,
  }: { status: RunStatus; error: LoopError | undefined; finalText: string | undefined },
): Promise<void> {
  const { state, plan, options } = input;
  const run = {
    runId: plan.runId,
    status,
    ...(error === undefined ? {} : { error }),
    ...(finalText === undefined ? {} : { finalText }),
  };
  if (state.version === null) {
    await options.store.saveRun(state.tenant, state.conversationId, run);
    return;
  }
  const usage: UsageTotals = state.usage;
  const anchor = state.tokenAnchor;
  await options.store.commit({
    tenant: state.tenant,
    conversationId: state.conversationId,
    expected: state.version,
    mode: "append",
    messages: [],
    digests: [],
    next: state.version,
    usage,
    ...(anchor === undefined || anchor.epoch !== state.version.epoch
      ? {}
      : { lastInput: { inputTokens: anchor.inputTokens, messageCount: anchor.messageCount } }),
    run,
  });
}

function encodeHeadCheckpoint(input: ExecuteRunInput): string {
  const { state, options, promptSpec } = input;
  const token = encodeCheckpoint({
    state: headToCheckpointState(state.head, { promptSpecDigest: promptSpec.digest }),
    secret: options.checkpointSecret,
    audience: state.tenant,
    cache: state.encodeCache,
  });
  state.issuedCheckpointDigest = sha256Hex(token);
  return token;
}

/**
 * The request's MCP servers, stored with the conversation when the request carries a request
 * context, so later actions without one rebuild the same tools.
 */
function promptSpecInputOf(input: ExecuteRunInput): { promptSpecInput?: JsonValue } {
  const context = input.request.requestContext;
  if (context === undefined) return {};
  return { promptSpecInput: { mcpServers: (context.mcp?.servers ?? []) as unknown as JsonValue } };
}
