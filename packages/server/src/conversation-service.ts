import { createCheckpointEncodeCache } from "@cursor/checkpoint";
import { ProjectionConflictError, createConversationHead, prepareTurn } from "@cursor/projection";
import type { ConversationHead, TurnPlan, TurnRecord } from "@cursor/projection";
import { createCursorPromptSpec, parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest, McpServerInput } from "@cursor/request";
import { HistoryConflictError, HistoryLog, sha256Hex } from "@cursor/run";
import type { PromptSpec, ProviderAdapter } from "@cursor/run";
import { ZodError } from "zod";
import { ClientCheckpoints } from "./client-checkpoints.js";
import {
  ConversationBusyError,
  ConversationNotFoundError,
  GatewayClosingError,
  InvalidCheckpointError,
  InvalidRunRequestError,
  RunConflictError,
} from "./conversation-errors.js";
import {
  ConversationHeadOwner,
  conversationKey,
  initialHeadState,
} from "./conversation-head-owner.js";
import type { HeadState } from "./conversation-head-owner.js";
import type { ConversationServiceOptions } from "./conversation-service-options.js";
import type { Tenant } from "./http/auth.js";
import type { UnlistedModel } from "./models/model-catalog.js";
import { ProviderRequestLog } from "./providers/provider-request-log.js";
import type { ProviderRequestRecord } from "./providers/provider-request-log.js";
import { redactSecrets } from "./redact-secrets.js";
import { RunExecution } from "./run-execution.js";
import type { RunOutcome, RunSink } from "./run-events.js";
import { StoreError } from "./store/store-error.js";
import type { GatewayStore, HeadVersion, StoredConversation } from "./store/gateway-store.js";
import { TurnWriter } from "./turn-writer.js";
import { UsageRecorder } from "./usage/usage-recorder.js";

/**
 * A conversation head a front door carries itself (the Cursor wire's conversation state),
 * already verified by that front door (MAC, blob hashes): `history`'s digests checked.
 */
export interface HydratedHead {
  readonly history: HistoryLog;
  readonly turns: readonly TurnRecord[];
  readonly lastRunId?: string;
}

export interface PrepareRunInput {
  readonly tenant: Tenant;
  /** A JSON-contract agent run request (validated here). */
  readonly body: unknown;
  /**
   * For a front door that carries its own conversation state: called only when the store does
   * not know the conversation; the head it returns is written with the first commit. The store
   * is the truth when it knows the conversation.
   */
  readonly hydrate?: () => Promise<HydratedHead>;
  /** Aborting it cancels the run (as `cancel` does). */
  readonly signal?: AbortSignal;
  /** How a `model` that is not a catalog id is read (default: the JSON contract's way). */
  readonly unlistedModel?: UnlistedModel;
}

/** An accepted request: nothing is stored yet. Call `execute` exactly once. */
export interface PreparedRun {
  readonly conversationId: string;
  readonly runId: string;
  execute(sink: RunSink): Promise<RunOutcome>;
}

interface ActiveRun {
  readonly runId: string;
  readonly controller: AbortController;
  readonly owner: ConversationHeadOwner;
  readonly done: Promise<void>;
}

/**
 * The gateway's use of the layers, for every front door: validates a request, loads the
 * conversation's head (the store; else a front door's hydrated head or the request's checkpoint;
 * else a new conversation), plans the turn (projection) and executes it (model loop, store writes)
 * into a `RunSink`. Everything that can refuse a request happens in `prepareRun`, before an event
 * is emitted and before anything is stored; refusals are typed `ConversationError`s.
 */
export class ConversationService {
  readonly #options: ConversationServiceOptions;
  readonly #checkpoints: ClientCheckpoints;
  readonly #heads = new Map<string, ConversationHeadOwner>();
  readonly #active = new Map<string, ActiveRun>();
  readonly requestLog: ProviderRequestLog;
  /** Usage records of every provider call (both front doors run through here). */
  readonly usage: UsageRecorder;
  #closing = false;

  /** The store the service runs on (its usage records are read by the usage endpoints). */
  get store(): GatewayStore {
    return this.#options.store;
  }

  constructor(options: ConversationServiceOptions) {
    this.#options = options;
    this.#checkpoints = new ClientCheckpoints({ secret: options.checkpointSecret });
    this.requestLog = options.requestLog ?? new ProviderRequestLog();
    this.usage = new UsageRecorder({
      store: options.store.providerCalls,
      requestLog: this.requestLog,
      metrics: options.metrics,
      logger: options.logger,
      redact: (text) => redactSecrets(text, options.secrets),
      now: () => options.now?.() ?? new Date(),
      conversationKey,
    });
  }

  get activeRuns(): number {
    return this.#active.size;
  }

  async prepareRun({
    tenant,
    body,
    hydrate,
    signal,
    unlistedModel,
  }: PrepareRunInput): Promise<PreparedRun> {
    // Where the gateway's own time toward this run's first provider call starts.
    const acceptedAt = performance.now();
    if (this.#closing) throw new GatewayClosingError();
    const parsed = parseAgentRunRequest(body);
    if (!parsed.success) throw new InvalidRunRequestError({ issues: parsed.issues });
    const request = parsed.data;
    const { conversationId, runId } = request;
    const model = this.#options.models.select({
      model: request.model,
      ...(unlistedModel === undefined ? {} : { unlisted: unlistedModel }),
    });
    const key = conversationKey(tenant.id, conversationId);
    if (this.#active.has(key)) throw new ConversationBusyError({ conversationId });
    const leaseMs = this.#options.runLeaseMs ?? 30_000;
    const lease = { tenant: tenant.id, conversationId, runId };
    if (!(await this.#options.store.acquireRun({ ...lease, leaseMs }))) {
      throw new ConversationBusyError({ conversationId });
    }
    const release = () => this.#options.store.releaseRun(lease);
    let owner: ConversationHeadOwner;
    let promptSpec: PromptSpec;
    let plan: TurnPlan;
    let adapter: ProviderAdapter;
    try {
      owner = await this.#load({ tenant, request, hydrate });
      promptSpec = promptSpecOf(request, owner.state);
      plan = this.#plan({ owner, request, promptSpec });
      adapter = await this.#options.models.adapter(model.entry);
      // A shutdown that began while the head loaded must not miss this run.
      if (this.#closing) throw new GatewayClosingError();
    } catch (error) {
      await release();
      throw error;
    }
    const controller = new AbortController();
    const abort = () => controller.abort(signal?.reason ?? new Error("the front door went away"));
    if (signal?.aborted) abort();
    signal?.addEventListener("abort", abort, { once: true });
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.#active.set(key, { runId, controller, owner, done });
    const renew = setInterval(
      () =>
        // A failed renewal (the database unreachable for a moment) must not end the process;
        // a lease lost to another process fences this run's writes (they are refused).
        void this.#options.store.renewRun({ ...lease, leaseMs }).then(
          (held) => {
            if (!held) {
              this.#options.logger.error(
                { conversationId, runId },
                "the run lease was lost: another process may serve this conversation",
              );
            }
          },
          (error: unknown) =>
            this.#options.logger.error(
              { err: redactSecrets(String(error), this.#options.secrets), conversationId },
              "could not renew the run lease",
            ),
        ),
      Math.max(1_000, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    const execution = new RunExecution({
      options: this.#options,
      calls: this.usage.forRun({
        tenant: tenant.id,
        conversationId,
        runId: plan.runId,
        provider: model.entry.provider,
        catalogModel: model.entry.id,
        acceptedAt,
      }),
      owner,
      writer: new TurnWriter({
        store: this.#options.store,
        owner,
        turn: {
          newTurns: plan.newTurns,
          acceptedRunId: plan.acceptedRunId,
          ...(request.requestContext === undefined
            ? {}
            : { mcpServers: { servers: request.requestContext.mcp?.servers } }),
        },
      }),
      plan,
      promptSpec,
      requestRunId: runId,
      adapter,
      providerModel: model.providerModel,
      signal: controller.signal,
    });
    let executed = false;
    return {
      conversationId,
      runId,
      execute: async (sink) => {
        if (executed) throw new Error("a prepared run executes once");
        executed = true;
        try {
          const outcome = await execution.execute(sink);
          // Keep the head only while it is the store's; anything else reloads next time.
          if (isConsistent(owner.state)) this.#remember(key, owner);
          else this.#heads.delete(key);
          return outcome;
        } catch (error) {
          this.#heads.delete(key);
          throw error;
        } finally {
          signal?.removeEventListener("abort", abort);
          clearInterval(renew);
          this.#active.delete(key);
          await release();
          finish();
        }
      },
    };
  }

  #plan({
    owner,
    request,
    promptSpec,
  }: {
    owner: ConversationHeadOwner;
    request: AgentRunRequest;
    promptSpec: PromptSpec;
  }): TurnPlan {
    try {
      return prepareTurn({ head: owner.state.head, request, promptSpec, now: this.#now() });
    } catch (error) {
      if (ProjectionConflictError.isInstance(error) || HistoryConflictError.isInstance(error)) {
        throw new RunConflictError({
          conversationId: request.conversationId,
          message: error.message,
          cause: error,
        });
      }
      throw error;
    }
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  /**
   * The conversation's head owner. The store is the truth: a cached head is used only while the
   * store still has the head it was built from. A conversation the store does not know starts
   * from the front door's hydrated head, or the client's checkpoint, or empty for a user
   * message; anything else is not found.
   */
  async #load({
    tenant,
    request,
    hydrate,
  }: {
    tenant: Tenant;
    request: AgentRunRequest;
    hydrate: (() => Promise<HydratedHead>) | undefined;
  }): Promise<ConversationHeadOwner> {
    const { conversationId, checkpoint } = request;
    const key = conversationKey(tenant.id, conversationId);
    const version = await this.#options.store.headVersion(tenant.id, conversationId);
    if (version !== undefined) {
      // The store has it: a checkpoint sent along only needs to be genuine and of this
      // conversation. Its MAC and header say whose it is; the rest is checked only when it is
      // not the token this process handed out last (the usual case costs a hash, not a
      // decode), because a tampered or truncated checkpoint is refused even when not needed.
      const token = { tenant: tenant.id, conversationId };
      if (checkpoint !== undefined) this.#checkpoints.inspect({ ...token, token: checkpoint });
      const owner = await this.#current({ tenant: tenant.id, conversationId, version });
      if (
        checkpoint !== undefined &&
        owner.state.issuedCheckpointDigest !== sha256Hex(checkpoint)
      ) {
        this.#checkpoints.decode({ ...token, token: checkpoint });
      }
      return this.#remember(key, owner);
    }
    if (hydrate !== undefined) {
      return this.#remember(
        key,
        this.#unstored(tenant, hydratedHead(conversationId, await hydrate())),
      );
    }
    if (checkpoint !== undefined) {
      const head = this.#checkpoints.decode({
        tenant: tenant.id,
        conversationId,
        token: checkpoint,
      });
      return this.#remember(key, this.#unstored(tenant, head));
    }
    if (request.action.type !== "user-message")
      throw new ConversationNotFoundError({ conversationId });
    return this.#unstored(tenant, createConversationHead({ conversationId }));
  }

  #unstored(tenant: Tenant, head: ConversationHead): ConversationHeadOwner {
    return new ConversationHeadOwner(initialHeadState({ tenant: tenant.id, head, version: null }));
  }

  /** The cached owner while it matches the store's `version`, else the store's head, loaded. */
  async #current({
    tenant,
    conversationId,
    version,
  }: {
    tenant: string;
    conversationId: string;
    version: HeadVersion;
  }): Promise<ConversationHeadOwner> {
    const cached = this.#heads.get(conversationKey(tenant, conversationId));
    const cachedVersion = cached?.state.version;
    if (
      cached !== undefined &&
      cachedVersion !== null &&
      cachedVersion !== undefined &&
      cachedVersion.epoch === version.epoch &&
      cachedVersion.headDigest === version.headDigest
    ) {
      return cached;
    }
    const stored = await this.#options.store.load(tenant, conversationId);
    if (stored === undefined) throw new ConversationNotFoundError({ conversationId });
    return new ConversationHeadOwner(storedHeadState(stored));
  }

  /** Keeps at most `maxCachedConversations` heads in memory, least recently used out first. */
  #remember(key: string, owner: ConversationHeadOwner): ConversationHeadOwner {
    this.#heads.delete(key);
    this.#heads.set(key, owner);
    const max = this.#options.maxCachedConversations ?? 1_000;
    for (const [oldest] of this.#heads) {
      if (this.#heads.size <= max) break;
      if (!this.#active.has(oldest)) this.#heads.delete(oldest);
    }
    return owner;
  }

  /** Whether `tenant` has this conversation: a run of it is open, or the store holds it. */
  async knows({
    tenant,
    conversationId,
  }: {
    tenant: Tenant;
    conversationId: string;
  }): Promise<boolean> {
    if (this.#active.has(conversationKey(tenant.id, conversationId))) return true;
    return (await this.#options.store.headVersion(tenant.id, conversationId)) !== undefined;
  }

  cancel({ tenant, conversationId }: { tenant: Tenant; conversationId: string }): boolean {
    const active = this.#active.get(conversationKey(tenant.id, conversationId));
    if (active === undefined || active.controller.signal.aborted) return false;
    active.controller.abort(new Error("cancelled by the client"));
    return true;
  }

  /**
   * The stored conversation's head (what a front door needs to describe it, e.g. to encode its
   * own state); undefined when the store does not have it. During a run: the head as of its
   * latest write.
   */
  async head({
    tenant,
    conversationId,
  }: {
    tenant: Tenant;
    conversationId: string;
  }): Promise<ConversationHead | undefined> {
    const key = conversationKey(tenant.id, conversationId);
    const active = this.#active.get(key)?.owner.state;
    if (active !== undefined && active.version !== null) return active.head;
    const version = await this.#options.store.headVersion(tenant.id, conversationId);
    if (version === undefined) return undefined;
    const owner = await this.#current({ tenant: tenant.id, conversationId, version });
    return this.#remember(key, owner).state.head;
  }

  /**
   * The JSON contract's checkpoint token of `head` (the final `head` event of a run), recorded
   * as issued when it is the conversation's current head: the same token sent back costs no
   * decode.
   */
  issueCheckpoint({
    tenant,
    head,
    promptSpecDigest,
  }: {
    tenant: Tenant;
    head: ConversationHead;
    promptSpecDigest: string;
  }): string {
    const key = conversationKey(tenant.id, head.conversationId);
    const owner = this.#active.get(key)?.owner ?? this.#heads.get(key);
    const current = owner !== undefined && owner.state.head === head ? owner : undefined;
    const token = this.#checkpoints.encode({
      head,
      tenant: tenant.id,
      promptSpecDigest,
      // Another head than the owner's would evict the segments of the one that is current.
      cache: current?.encodeCache ?? createCheckpointEncodeCache({ maxBytes: 16 * 1024 * 1024 }),
    });
    current?.dispatch({ type: "checkpoint-issued", digest: sha256Hex(token) });
    return token;
  }

  async #stored(tenant: Tenant, conversationId: string): Promise<StoredConversation> {
    const stored = await this.#options.store.load(tenant.id, conversationId);
    if (stored === undefined) throw new ConversationNotFoundError({ conversationId });
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

/** The prompt spec of a request: its own request context's, else the conversation's latest. */
function promptSpecOf(request: AgentRunRequest, state: HeadState): PromptSpec {
  // A tool-results continuation (no request context) sends the same tools as the turn it continues.
  const mcpServers =
    request.requestContext === undefined ? state.mcpServers : request.requestContext.mcp?.servers;
  return createCursorPromptSpec(mcpServers === undefined ? {} : { mcpServers });
}

/** A head a front door hydrated, checked as every head is (conversation id, turn records). */
function hydratedHead(conversationId: string, hydrated: HydratedHead): ConversationHead {
  try {
    return createConversationHead({
      conversationId,
      history: hydrated.history,
      turns: hydrated.turns,
      lastRunId: hydrated.lastRunId,
    });
  } catch (error) {
    if (error instanceof ZodError) {
      throw new InvalidCheckpointError({
        message: `the hydrated conversation state is invalid: ${error.message}`,
        cause: error,
      });
    }
    throw error;
  }
}

/** The head state of a stored conversation, its history verified against the stored digest. */
function storedHeadState(stored: StoredConversation): HeadState {
  // The decoded messages carry their digests: building the log hashes nothing again.
  const history = new HistoryLog({ epoch: stored.epoch, messages: stored.messages });
  if (history.headDigest !== stored.headDigest) {
    throw new StoreError({
      reason: "corrupt",
      message: `conversation ${stored.conversationId} failed its digest check`,
    });
  }
  return initialHeadState({
    tenant: stored.tenant,
    head: createConversationHead({
      conversationId: stored.conversationId,
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

/** True while the state's version is the head its history holds (the store's, after a run). */
function isConsistent(state: HeadState): boolean {
  const { history } = state.head;
  return (
    state.version !== null &&
    state.version.epoch === history.epoch &&
    state.version.headDigest === history.headDigest &&
    state.version.messageCount === history.length
  );
}

/** The MCP servers stored with a conversation (`{ mcpServers }`), if any. */
function promptSpecInputServers(input: unknown): readonly McpServerInput[] | undefined {
  if (typeof input !== "object" || input === null || !("mcpServers" in input)) return undefined;
  const servers = (input as { mcpServers: unknown }).mcpServers;
  return Array.isArray(servers) ? (servers as McpServerInput[]) : undefined;
}
