import {
  ProjectionConflictError,
  createConversationHead,
  prepareTurn,
  recordTurnPlan,
  commitTurnPlan,
} from "@cursor/projection";
import type { ConversationHead, TurnPlan, TurnRecord } from "@cursor/projection";
import {
  createCursorPromptSpec,
  parseAgentRunRequest,
  renderSummaryText,
  summarizerInstructions,
} from "@cursor/request";
import type { AgentRunRequest, McpServerInput } from "@cursor/request";
import { HistoryLog, createCompactor, runModelLoop } from "@cursor/run";
import type { CanonicalMessage } from "@cursor/run";
import type {
  AgentRunRequestJson,
  HydratedHeadLike,
  WireLogger,
  WireModel,
  WirePorts,
  WirePreparedRun,
  WireRunEvent,
} from "../ports.js";
import { ScriptedProvider } from "./scripted-provider.js";

/** A domain error of the kind the server's service throws (SEAM.md): a stable `code`. */
export class FakeDomainError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

interface Stored {
  readonly epoch: number;
  readonly messages: readonly CanonicalMessage[];
  readonly turns: readonly TurnRecord[];
  readonly lastRunId: string | undefined;
  readonly mcpServers: readonly McpServerInput[] | undefined;
}

export const testSecret = "wire-test-checkpoint-secret-0123456789abcdef";

export const testModels: readonly WireModel[] = [
  {
    id: "byok-gpt",
    displayName: "GPT (BYOK)",
    provider: "openai-responses",
    contextWindowTokens: 400_000,
  },
  { id: "byok-claude", displayName: "Claude (BYOK)", provider: "anthropic" },
];

export interface LoggedLine {
  readonly level: "warn" | "error";
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/**
 * An in-memory stand-in for the server's conversation service, built from the real layers:
 * `parseAgentRunRequest`, `prepareTurn`, the model loop with a scripted provider, manual
 * compaction, a map as the store. It emits the SEAM.md run events, `head` after each commit.
 */
export class MemoryConversationService {
  readonly provider = new ScriptedProvider();
  readonly summarizer = new ScriptedProvider();
  readonly store = new Map<string, Stored>();
  /** Every body `prepareRun` was given, in order. */
  readonly bodies: AgentRunRequestJson[] = [];
  readonly logs: LoggedLine[] = [];
  readonly active = new Map<string, AbortController>();
  /** Heads as the last run left them, like the server's state cache (the store stays the truth). */
  readonly #live = new Map<string, ConversationHead>();
  hydrations = 0;
  #clock = Date.parse("2026-11-29T09:00:00Z");

  readonly logger: WireLogger = {
    warn: (fields, message) => this.logs.push({ level: "warn", fields, message }),
    error: (fields, message) => this.logs.push({ level: "error", fields, message }),
  };

  ports(overrides: Partial<WirePorts> = {}): WirePorts {
    return {
      prepareRun: (input) => this.prepareRun(input),
      cancel: (conversationId) => this.cancel(conversationId),
      head: (conversationId) => Promise.resolve(this.storedHead(conversationId)),
      models: () => testModels,
      checkpointSecret: testSecret,
      logger: this.logger,
      ...overrides,
    };
  }

  storedHead(conversationId: string): ConversationHead | undefined {
    const stored = this.store.get(conversationId);
    if (stored === undefined) return undefined;
    return createConversationHead({
      conversationId,
      history: new HistoryLog({ epoch: stored.epoch, messages: stored.messages }),
      turns: stored.turns,
      lastRunId: stored.lastRunId,
    });
  }

  cancel(conversationId: string): boolean {
    const active = this.active.get(conversationId);
    if (active === undefined || active.signal.aborted) return false;
    active.abort(new Error("cancelled"));
    return true;
  }

  async prepareRun({
    body,
    hydrate,
    signal,
  }: {
    body: AgentRunRequestJson;
    hydrate?: () => Promise<HydratedHeadLike>;
    signal?: AbortSignal;
  }): Promise<WirePreparedRun> {
    this.bodies.push(body);
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) {
      throw new FakeDomainError(
        "invalid_request",
        parsed.issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "),
      );
    }
    const request = parsed.data;
    if (this.active.has(request.conversationId)) {
      throw new FakeDomainError(
        "conversation_busy",
        `conversation ${request.conversationId} is busy`,
      );
    }
    const stored = this.store.get(request.conversationId);
    let head: ConversationHead;
    if (stored !== undefined) {
      head = this.#live.get(request.conversationId) ?? this.storedHead(request.conversationId)!;
    }
    else if (hydrate !== undefined) {
      this.hydrations += 1;
      const hydrated = await hydrate();
      head = createConversationHead({
        conversationId: request.conversationId,
        history: hydrated.history,
        turns: hydrated.turns,
        lastRunId: hydrated.lastRunId,
      });
    } else if (request.action.type === "user-message") {
      head = createConversationHead({ conversationId: request.conversationId });
    } else {
      throw new FakeDomainError(
        "conversation_not_found",
        `conversation ${request.conversationId} not found`,
      );
    }
    const mcpServers =
      request.requestContext === undefined
        ? stored?.mcpServers
        : request.requestContext.mcp?.servers;
    const promptSpec = createCursorPromptSpec(mcpServers === undefined ? {} : { mcpServers });
    let plan: TurnPlan;
    try {
      this.#clock += 60_000;
      plan = prepareTurn({ head, request, promptSpec, now: new Date(this.#clock) });
    } catch (error) {
      if (ProjectionConflictError.isInstance(error))
        throw new FakeDomainError("run_conflict", error.message);
      throw error;
    }
    const controller = new AbortController();
    signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
    this.active.set(request.conversationId, controller);
    return {
      execute: async (sink) => {
        try {
          return await this.#execute({
            request,
            head,
            plan,
            promptSpec,
            sink,
            controller,
            mcpServers,
          });
        } finally {
          this.active.delete(request.conversationId);
        }
      },
    };
  }

  #persist(head: ConversationHead, mcpServers: readonly McpServerInput[] | undefined): void {
    this.#live.set(head.conversationId, head);
    this.store.set(head.conversationId, {
      epoch: head.history.epoch,
      messages: [...head.history.messages],
      turns: head.turns,
      lastRunId: head.lastRunId,
      mcpServers,
    });
  }

  async #execute({
    request,
    head: initial,
    plan,
    promptSpec,
    sink,
    controller,
    mcpServers,
  }: {
    request: AgentRunRequest;
    head: ConversationHead;
    plan: TurnPlan;
    promptSpec: ReturnType<typeof createCursorPromptSpec>;
    sink: { event(event: WireRunEvent): void };
    controller: AbortController;
    mcpServers: readonly McpServerInput[] | undefined;
  }) {
    let head = initial;
    const emit = (event: WireRunEvent) => sink.event(event);
    const emitHead = (final: boolean) =>
      emit({ type: "head", head, pendingToolCalls: head.history.pendingToolCalls(), final });
    const end = (
      reason: "completed" | "awaiting-tools" | "cancelled" | "failed",
      error?: { code: string; message: string; retryable: boolean },
    ) => {
      emit({ type: "run.ended", reason, ...(error === undefined ? {} : { error }) });
      return { reason, ...(error === undefined ? {} : { error }) };
    };
    emit({
      type: "run.started",
      conversationId: head.conversationId,
      runId: plan.runId,
      epoch: head.history.epoch,
    });
    if (plan.next === "done") {
      head = recordTurnPlan({ head, plan });
      this.#persist(head, mcpServers);
      emitHead(true);
      return end("completed");
    }
    if (plan.next === "compact") {
      head = commitTurnPlan({ head, plan });
      if (head.history.length === 0) {
        emitHead(true);
        return end("completed");
      }
      const compact = createCompactor({
        provider: this.summarizer,
        conversationId: head.conversationId,
        model: request.model ?? "test-model",
        instructions: summarizerInstructions,
        formatSummary: renderSummaryText,
        keepRequestContext: false,
        persistEpoch: () => undefined,
      });
      const result = await compact({
        reason: "manual",
        trigger: "manual",
        history: head.history,
        current: [],
        signal: controller.signal,
      });
      this.#persist(head, mcpServers);
      emitHead(false);
      emit({ type: "compaction", reason: "manual", epoch: result.epoch });
      emitHead(true);
      return end("completed");
    }
    if (plan.next === "await-tools") {
      head = commitTurnPlan({ head, plan });
      this.#persist(head, mcpServers);
      emitHead(true);
      return end("awaiting-tools");
    }
    let committed = false;
    let headPending = false;
    const flushHead = () => {
      if (!headPending) return;
      headPending = false;
      emitHead(false);
    };
    const outcome = await runModelLoop({
      conversationId: head.conversationId,
      runId: plan.runId,
      model: request.model ?? "test-model",
      promptSpec,
      ...(plan.allowedTools === undefined ? {} : { allowedTools: plan.allowedTools }),
      history: head.history,
      pending: plan.initialMessages,
      currentInitialMessages: plan.currentInitialMessages,
      provider: this.provider,
      retry: { maxAttempts: 1 },
      signal: controller.signal,
      commit: () => {
        if (!committed) head = recordTurnPlan({ head, plan });
        committed = true;
        // The loop appends right after this resolves; the head event follows that append.
        headPending = true;
      },
      onEvent: (event) => {
        flushHead();
        emit(
          event.type === "usage"
            ? { type: "usage", usage: event.data }
            : ({ type: event.type, ...event.data } as WireRunEvent),
        );
      },
    });
    if (committed) this.#persist(head, mcpServers);
    headPending = false;
    if (committed || this.store.has(head.conversationId)) emitHead(true);
    if (outcome.reason === "failed") {
      const retryable = ["provider_error", "provider_unavailable", "rate_limited"].includes(
        outcome.error?.code ?? "",
      );
      return end("failed", {
        code: outcome.error?.code ?? "internal_error",
        message: outcome.error?.message ?? "failed",
        retryable,
      });
    }
    return end(outcome.reason);
  }
}
