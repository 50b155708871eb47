import { CheckpointError, decodeCheckpoint, inspectCheckpoint } from "@cursor/checkpoint";
import type { CheckpointState } from "@cursor/checkpoint";
import {
  ProjectionConflictError,
  createConversationHead,
  headFromCheckpointState,
  prepareTurn,
} from "@cursor/projection";
import type { ConversationHead, TurnPlan } from "@cursor/projection";
import { createCursorPromptSpec, parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest, McpServerInput } from "@cursor/request";
import { ZodError } from "zod";
import { HistoryLog, sha256Hex } from "@cursor/run";
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
      promptSpec = this.#promptSpec(request, state);
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
          if (state.version !== null) this.#remember(key, state);
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

  /**
   * The prompt spec of this request: from its own request context when it carries one, else from
   * the conversation's latest (stored) one, so a tool-results continuation sends the same tools.
   */
  #promptSpec(request: AgentRunRequest, state: ConversationState): PromptSpec {
    const mcpServers =
      request.requestContext === undefined ? state.mcpServers : request.requestContext.mcp?.servers;
    return createCursorPromptSpec(mcpServers === undefined ? {} : { mcpServers });
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

  /**
   * The conversation's state. The store is the truth: a cached state is used only while the
   * store still has the head it was built from. A conversation the store does not know resumes
   * from the client's checkpoint, or starts empty for a user message; anything else is a 404.
   */
  async #loadState({
    tenant,
    request,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
  }): Promise<ConversationState> {
    const { store } = this.#options;
    const key = conversationKey(tenant.id, request.conversationId);
    const version = await store.headVersion(tenant.id, request.conversationId);
    if (version !== undefined) {
      // The store has it: a checkpoint sent along only needs to be genuine and of this
      // conversation. Its MAC and header say whose it is; the rest is checked only when it is
      // not the token this process handed out last (the usual case costs a hash, not a
      // decode), because a tampered or truncated checkpoint is a 400 even when it is not needed.
      if (request.checkpoint !== undefined) this.#inspect({ tenant, request });
      const cached = this.#states.get(key);
      const state =
        cached?.version !== undefined &&
        cached.version !== null &&
        sameVersion(cached.version, version)
          ? cached
          : await this.#loadStored({ tenant, request });
      if (
        request.checkpoint !== undefined &&
        state.issuedCheckpointDigest !== sha256Hex(request.checkpoint)
      ) {
        this.#decode({ tenant, request });
      }
      return this.#remember(key, state);
    }
    if (request.checkpoint !== undefined) {
      return this.#remember(key, this.#resumeFromCheckpoint({ tenant, request }));
    }
    if (request.action.type !== "user-message") {
      throw new HttpError("not_found", `conversation ${request.conversationId} not found`);
    }
    return newConversationState({
      tenant: tenant.id,
      conversationId: request.conversationId,
      head: createConversationHead({ conversationId: request.conversationId }),
      version: null,
    });
  }

  /** Keeps at most `maxCachedConversations` heads in memory, least recently used out first. */
  #remember(key: string, state: ConversationState): ConversationState {
    this.#states.delete(key);
    this.#states.set(key, state);
    const max = this.#options.maxCachedConversations ?? 1_000;
    for (const [oldest] of this.#states) {
      if (this.#states.size <= max) break;
      if (!this.#active.has(oldest)) this.#states.delete(oldest);
    }
    return state;
  }

  async #loadStored({ tenant, request }: { tenant: Tenant; request: AgentRunRequest }) {
    const stored = await this.#options.store.load(tenant.id, request.conversationId);
    if (stored === undefined) {
      throw new HttpError("not_found", `conversation ${request.conversationId} not found`);
    }
    const history = new HistoryLog({ epoch: stored.epoch, messages: stored.messages });
    if (history.headDigest !== stored.headDigest) {
      throw new HttpError(
        "internal_error",
        `conversation ${request.conversationId} failed its digest check`,
      );
    }
    return newConversationState({
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
      mcpServers: promptSpecInputServers(stored.promptSpecInput),
    });
  }

  /** Maps a refused checkpoint to the contract's answer: 409 for another conversation, else 400. */
  #checkpointError(error: unknown): never {
    if (CheckpointError.isInstance(error)) {
      if (error.reason === "foreign-conversation") {
        throw new HttpError("conflict", "the checkpoint belongs to another conversation");
      }
      throw new HttpError(
        "invalid_checkpoint",
        `invalid checkpoint (${error.reason}): ${error.message}`,
      );
    }
    if (error instanceof ZodError) {
      throw new HttpError("invalid_checkpoint", `invalid checkpoint: ${error.message}`);
    }
    throw error;
  }

  #inspect({ tenant, request }: { tenant: Tenant; request: AgentRunRequest }): void {
    try {
      inspectCheckpoint({
        token: request.checkpoint!,
        secret: this.#options.checkpointSecret,
        audience: tenant.id,
        conversationId: request.conversationId,
      });
    } catch (error) {
      this.#checkpointError(error);
    }
  }

  /** Decodes and verifies the whole checkpoint (MAC, segments, every blob, the head digest). */
  #decode({ tenant, request }: { tenant: Tenant; request: AgentRunRequest }): CheckpointState {
    try {
      return decodeCheckpoint({
        token: request.checkpoint!,
        secret: this.#options.checkpointSecret,
        audience: tenant.id,
        conversationId: request.conversationId,
      });
    } catch (error) {
      this.#checkpointError(error);
    }
  }

  #resumeFromCheckpoint({
    tenant,
    request,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
  }): ConversationState {
    const decoded = this.#decode({ tenant, request });
    let head: ConversationHead;
    try {
      head = headFromCheckpointState(decoded);
    } catch (error) {
      this.#checkpointError(error);
    }
    return newConversationState({
      tenant: tenant.id,
      conversationId: request.conversationId,
      head,
      version: null,
      seed: head.history.messages,
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
  a: { epoch: number; headDigest: string },
  b: { epoch: number; headDigest: string },
): boolean {
  return a.epoch === b.epoch && a.headDigest === b.headDigest;
}

/** The MCP servers stored with a conversation (`{ mcpServers }`), if any. */
function promptSpecInputServers(input: unknown): readonly McpServerInput[] | undefined {
  if (typeof input !== "object" || input === null || !("mcpServers" in input)) return undefined;
  const servers = (input as { mcpServers: unknown }).mcpServers;
  return Array.isArray(servers) ? (servers as McpServerInput[]) : undefined;
}
