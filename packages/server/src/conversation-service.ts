import { CheckpointError, decodeCheckpoint, hydrateCheckpoint } from "@cursor/checkpoint";
import { ProjectionConflictError, createConversationHead, prepareTurn } from "@cursor/projection";
import type { TurnPlan } from "@cursor/projection";
import { createCursorPromptSpec, parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest } from "@cursor/request";
import { HistoryLog } from "@cursor/run";
import type { PromptSpec } from "@cursor/run";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import type { ConversationState } from "./conversation-state.js";
import { conversationKey, newConversationState } from "./conversation-state.js";
import type { Tenant } from "./http/auth.js";
import { HttpError } from "./http/http-error.js";
import type { SseStream } from "./http/sse-stream.js";
import { ProviderRequestLog } from "./providers/provider-request-log.js";
import type { ProviderRequestRecord } from "./providers/provider-request-log.js";
import { executeRun } from "./run-execution.js";

export interface PreparedRun {
  execute(stream: SseStream): Promise<void>;
}

interface ActiveRun {
  readonly runId: string;
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The gateway's use of the layers: validates a request, loads the conversation (store or
 * client checkpoint), plans the turn (projection) and executes it (model loop, store commits,
 * checkpoint). Everything that can reject a request happens in `prepareRun`, before a byte of
 * the stream is written and before anything is stored.
 */
export class ConversationService {
  readonly #options: ConversationServiceOptions;
  readonly #states = new Map<string, ConversationState>();
  readonly #active = new Map<string, ActiveRun>();
  readonly requestLog: ProviderRequestLog;
  #closing = false;

  constructor(options: ConversationServiceOptions) {
    this.#options = options;
    this.requestLog = options.requestLog ?? new ProviderRequestLog();
  }

  get activeRuns(): number {
    return this.#active.size;
  }

  async prepareRun({ tenant, body }: { tenant: Tenant; body: unknown }): Promise<PreparedRun> {
    if (this.#closing) throw new HttpError("conflict", "the gateway is shutting down");
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) {
      throw new HttpError("invalid_request", "the agent run request is invalid", parsed.issues);
    }
    const request = parsed.data;
    const key = conversationKey(tenant.id, request.conversationId);
    if (this.#active.has(key)) {
      throw new HttpError(
        "conflict",
        `a run of conversation ${request.conversationId} is in progress`,
      );
    }
    const leaseMs = this.#options.runLeaseMs ?? 120_000;
    const acquired = await this.#options.store.acquireRun({
      tenant: tenant.id,
      conversationId: request.conversationId,
      runId: request.runId,
      leaseMs,
    });
    if (!acquired) {
      throw new HttpError(
        "conflict",
        `a run of conversation ${request.conversationId} is in progress`,
      );
    }
    const release = () =>
      this.#options.store.releaseRun({
        tenant: tenant.id,
        conversationId: request.conversationId,
        runId: request.runId,
      });
    let state: ConversationState;
    let plan: TurnPlan;
    let promptSpec: PromptSpec;
    try {
      state = await this.#loadState({ tenant, request });
      promptSpec = this.#promptSpec(request);
      plan = this.#plan({ state, request, promptSpec });
    } catch (error) {
      await release();
      throw error;
    }
    const controller = new AbortController();
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.#active.set(key, { runId: request.runId, controller, done });
    const renew = setInterval(
      () => {
        void this.#options.store.renewRun({
          tenant: tenant.id,
          conversationId: request.conversationId,
          runId: request.runId,
          leaseMs,
        });
      },
      Math.max(1_000, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    return {
      execute: async (stream) => {
        try {
          await executeRun({
            options: this.#options,
            requestLog: this.requestLog,
            state,
            request,
            plan,
            promptSpec,
            stream,
            signal: controller.signal,
          });
        } catch (error) {
          // The store may have moved under us (another process): drop the cached state.
          this.#states.delete(key);
          throw error;
        } finally {
          clearInterval(renew);
          this.#active.delete(key);
          await release();
          finish();
        }
      },
    };
  }

  #promptSpec(request: AgentRunRequest): PromptSpec {
    return createCursorPromptSpec({
      ...(request.requestContext?.mcp?.servers === undefined
        ? {}
        : { mcpServers: request.requestContext.mcp.servers }),
    });
  }

  #plan({
    state,
    request,
    promptSpec,
  }: {
    state: ConversationState;
    request: AgentRunRequest;
    promptSpec: PromptSpec;
  }): TurnPlan {
    try {
      return prepareTurn({ head: state.head, request, promptSpec, now: this.#now() });
    } catch (error) {
      if (ProjectionConflictError.isInstance(error)) throw new HttpError("conflict", error.message);
      throw error;
    }
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  /** The conversation's state: cached if the store still has the same head, else loaded. */
  async #loadState({
    tenant,
    request,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
  }): Promise<ConversationState> {
    const { store } = this.#options;
    const key = conversationKey(tenant.id, request.conversationId);
    const cached = this.#states.get(key);
    const version = await store.headVersion(tenant.id, request.conversationId);
    if (request.checkpoint !== undefined) this.#verifyCheckpoint({ tenant, request });
    if (cached !== undefined && sameVersion(cached.version, version ?? null)) return cached;
    if (version !== undefined) {
      const stored = await store.load(tenant.id, request.conversationId);
      if (stored === undefined)
        throw new HttpError("not_found", `conversation ${request.conversationId} not found`);
      const history = new HistoryLog({ epoch: stored.epoch, messages: stored.messages });
      if (history.headDigest !== stored.headDigest) {
        throw new HttpError(
          "internal_error",
          `conversation ${request.conversationId} failed its digest check`,
        );
      }
      const state = newConversationState({
        tenant: tenant.id,
        conversationId: request.conversationId,
        head: createConversationHead({
          conversationId: request.conversationId,
          history,
          turns: stored.turns,
          lastRunId: stored.lastRunId,
        }),
        version: {
          epoch: stored.epoch,
          headDigest: stored.headDigest,
          messageCount: stored.messages.length,
        },
        usage: stored.usage,
        tokenAnchor:
          stored.lastInput === undefined
            ? undefined
            : {
                epoch: stored.epoch,
                messageCount: stored.lastInput.messageCount,
                inputTokens: stored.lastInput.inputTokens,
              },
      });
      this.#states.set(key, state);
      return state;
    }
    if (request.checkpoint !== undefined) {
      const state = this.#resumeFromCheckpoint({ tenant, request, checkpoint: request.checkpoint });
      this.#states.set(key, state);
      return state;
    }
    if (request.action.type !== "user-message") {
      throw new HttpError("not_found", `conversation ${request.conversationId} not found`);
    }
    const state = newConversationState({
      tenant: tenant.id,
      conversationId: request.conversationId,
      head: createConversationHead({ conversationId: request.conversationId }),
      version: null,
    });
    this.#states.set(key, state);
    return state;
  }

  #decode({
    tenant,
    request,
    checkpoint,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
    checkpoint: string;
  }) {
    try {
      return decodeCheckpoint({
        token: checkpoint,
        secret: this.#options.checkpointSecret,
        audience: tenant.id,
        conversationId: request.conversationId,
      });
    } catch (error) {
      if (CheckpointError.isInstance(error)) {
        if (error.reason === "foreign-conversation") {
          throw new HttpError("conflict", `the checkpoint belongs to another conversation`);
        }
        throw new HttpError(
          "invalid_checkpoint",
          `invalid checkpoint (${error.reason}): ${error.message}`,
        );
      }
      throw error;
    }
  }

  /** A checkpoint is always verified, even when the store already has the conversation. */
  #verifyCheckpoint({ tenant, request }: { tenant: Tenant; request: AgentRunRequest }): void {
    this.#decode({ tenant, request, checkpoint: request.checkpoint! });
  }

  #resumeFromCheckpoint({
    tenant,
    request,
    checkpoint,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
    checkpoint: string;
  }): ConversationState {
    const hydrated = hydrateCheckpoint(this.#decode({ tenant, request, checkpoint }));
    const lastTurn = hydrated.turns[hydrated.turns.length - 1];
    return newConversationState({
      tenant: tenant.id,
      conversationId: request.conversationId,
      head: createConversationHead({
        conversationId: request.conversationId,
        history: hydrated.history,
        turns: hydrated.turns,
        lastRunId: lastTurn?.runId,
      }),
      version: null,
      seed: hydrated.history.messages,
    });
  }

  cancel({ tenant, conversationId }: { tenant: Tenant; conversationId: string }): boolean {
    const active = this.#active.get(conversationKey(tenant.id, conversationId));
    if (active === undefined || active.controller.signal.aborted) return false;
    active.controller.abort(new Error("cancelled by the client"));
    return true;
  }

  async #stored(tenant: Tenant, conversationId: string) {
    const stored = await this.#options.store.load(tenant.id, conversationId);
    if (stored === undefined)
      throw new HttpError("not_found", `conversation ${conversationId} not found`);
    return stored;
  }

  async summary({ tenant, conversationId }: { tenant: Tenant; conversationId: string }) {
    const stored = await this.#stored(tenant, conversationId);
    return {
      conversationId,
      epoch: stored.epoch,
      messages: stored.messages.length,
      headDigest: stored.headDigest,
      usage: {
        inputTokens: stored.usage.inputTokens,
        cachedInputTokens: stored.usage.cachedInputTokens,
        cacheWriteTokens: stored.usage.cacheWriteTokens,
        outputTokens: stored.usage.outputTokens,
      },
    };
  }

  async history({ tenant, conversationId }: { tenant: Tenant; conversationId: string }) {
    const stored = await this.#stored(tenant, conversationId);
    return stored.messages;
  }

  async providerRequests({
    tenant,
    conversationId,
    limit,
  }: {
    tenant: Tenant;
    conversationId: string;
    limit: number;
  }): Promise<{ requests: readonly ProviderRequestRecord[] }> {
    await this.#stored(tenant, conversationId);
    return { requests: this.requestLog.list(conversationKey(tenant.id, conversationId), limit) };
  }

  /** Stops taking runs, cancels the open ones and waits until each ended (nothing half-committed). */
  async shutdown(): Promise<void> {
    this.#closing = true;
    const open = [...this.#active.values()];
    for (const run of open) run.controller.abort(new Error("the gateway is shutting down"));
    await Promise.all(open.map((run) => run.done));
  }
}

function sameVersion(
  a: { epoch: number; headDigest: string } | null,
  b: { epoch: number; headDigest: string } | null,
): boolean {
  if (a === null || b === null) return a === b;
  return a.epoch === b.epoch && a.headDigest === b.headDigest;
}
