import { setImmediate as nextTurn } from "node:timers/promises";
import { ProjectionConflictError, createConversationHead, prepareTurn } from "@cursor/projection";
import type { ConversationHead, TurnPlan, TurnRecord } from "@cursor/projection";
import { parseAgentRunRequest } from "@cursor/request";
import type { AgentRunRequest, McpServerInput } from "@cursor/request";
import { HistoryConflictError, HistoryLog, sha256Hex } from "@cursor/run";
import type { PromptSpec, ProviderAdapter } from "@cursor/run";
import { ZodError } from "zod";
import { CacheLedger, defaultCacheBytes } from "./cache/cache-ledger.js";
import type { CacheLedgerStats } from "./cache/cache-ledger.js";
import { HeadCache } from "./cache/head-cache.js";
import { ClientCheckpoints } from "./client-checkpoints.js";
import { PromptSpecCache } from "./prompt-spec-cache.js";
import type { CheckpointBase } from "./client-checkpoints.js";
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
import { SecretRedactor } from "./redaction/secret-redactor.js";
import { catchUpToClient, coversStoredHead, reconcileHeads } from "./reconcile-client-head.js";
import { RunExecution } from "./run-execution.js";
import { RunSlots } from "./run-slots.js";
import type { RunOutcome, RunSink } from "./run-events.js";
import { StoreError } from "./store/store-error.js";
import type { GatewayStore, HeadVersion, StoredConversation } from "./store/gateway-store.js";
import { tenantCacheScope } from "./tenant-cache-scope.js";
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
  /** The form of checkpoint the request asked for (JSON front door). */
  readonly checkpointForm: "full" | "delta";
  /** The head the run starts from: what a client of the delta form holds already. */
  readonly checkpointBase: CheckpointBase;
  /**
   * Runs the request; resolves with its outcome once its answer ended (`run.ended`, the last
   * event). Its records may still be being written then (see `finished`).
   */
  execute(sink: RunSink): Promise<RunOutcome>;
  /**
   * Resolves once the executed run is over: its run record and usage records written, its head
   * cached, the conversation free for its next run (which would wait for this anyway).
   */
  readonly finished: Promise<void>;
}

interface ActiveRun {
  readonly runId: string;
  readonly controller: AbortController;
  readonly owner: ConversationHeadOwner;
  /** Resolves once the run is over: its records written, its slot released. */
  readonly done: Promise<void>;
  /** The full checkpoint the request sent back (verified): it holds the head's segments. */
  readonly clientToken: string | undefined;
  /**
   * True once the run's answer ended (`run.ended` went out) while its records are still being
   * written: the next request of the conversation waits for `done` instead of being refused.
   */
  finishing: boolean;
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
  /** The one byte budget of everything below that is kept in memory (heads, specs, bodies). */
  readonly #cache: CacheLedger;
  readonly #heads: HeadCache;
  readonly #promptSpecs: PromptSpecCache;
  readonly #active = new Map<string, ActiveRun>();
  readonly #cacheScopes = new Map<string, string>();
  /** Every conversation's one run slot (a lease in a shared store, this process's own else). */
  readonly #slots: RunSlots;
  readonly requestLog: ProviderRequestLog;
  /**
   * Every secret that must not leave the gateway, in every form: run events, errors, logs and
   * records pass through it. A front door registers the secrets it learns (the Cursor IDE's
   * `Authorization` token) with `redactor.register`.
   */
  readonly redactor: SecretRedactor;
  /** Usage records of every provider call (both front doors run through here). */
  readonly usage: UsageRecorder;
  #closing = false;

  /** The store the service runs on (its usage records are read by the usage endpoints). */
  get store(): GatewayStore {
    return this.#options.store;
  }

  constructor(options: ConversationServiceOptions) {
    this.redactor =
      options.redactor ??
      new SecretRedactor({ secrets: [...options.models.secrets, ...(options.secrets ?? [])] });
    const redactor = this.redactor;
    this.#options = {
      ...options,
      // What the service logs is redacted like everything else that leaves it.
      logger: {
        error: (details, message) =>
          options.logger.error(redactLogDetails(details, redactor), redactor.redact(message)),
      },
    };
    this.#checkpoints = new ClientCheckpoints({ secret: options.checkpointSecret });
    this.#slots = new RunSlots({
      store: options.store,
      leaseMs: options.runLeaseMs ?? 30_000,
      logger: this.#options.logger,
    });
    this.#cache = new CacheLedger({
      maxBytes: options.cacheBytes ?? defaultCacheBytes,
      onEvict: (entry) =>
        options.metrics.increment("cursor_gateway_cache_evictions_total", { kind: entry.kind }),
    });
    this.#heads = new HeadCache({ ledger: this.#cache });
    this.#promptSpecs = new PromptSpecCache({ ledger: this.#cache });
    this.requestLog = new ProviderRequestLog({ ledger: this.#cache });
    this.usage = new UsageRecorder({
      store: options.store.providerCalls,
      requestLog: this.requestLog,
      metrics: options.metrics,
      logger: this.#options.logger,
      redact: (text) => redactor.redact(text),
      now: () => options.now?.() ?? new Date(),
      conversationKey,
    });
  }

  get activeRuns(): number {
    return this.#active.size;
  }

  /** What the in-memory caches hold against their byte budget (the cache metrics). */
  cacheStats(): CacheLedgerStats {
    return this.#cache.stats();
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
    const previous = this.#active.get(key);
    if (previous !== undefined) {
      // A run whose answer has ended is only storing its records (a few milliseconds): this
      // request is its next turn, and waits for them. Any other open run makes it busy.
      if (!previous.finishing) throw new ConversationBusyError({ conversationId });
      await previous.done;
      if (this.#active.has(key)) throw new ConversationBusyError({ conversationId });
    }
    const lease = { tenant: tenant.id, conversationId, runId };
    if (!(await this.#slots.take(lease))) throw new ConversationBusyError({ conversationId });
    // Nothing of a conversation being run leaves the cache until the run ends (or is refused).
    this.#heads.pin(key);
    const release = () => {
      this.#heads.unpin(key);
      return this.#slots.free(lease);
    };
    let owner: ConversationHeadOwner;
    let checkpointBase: CheckpointBase;
    let promptSpec: PromptSpec;
    let plan: TurnPlan;
    let adapter: ProviderAdapter;
    try {
      owner = await this.#load({ tenant, request, hydrate });
      // Numbers, not the head: its history log grows in place as the run commits.
      checkpointBase = {
        epoch: owner.state.head.history.epoch,
        messageCount: owner.state.head.history.length,
        turnCount: owner.state.head.turns.length,
        headDigest: owner.state.head.history.headDigest,
      };
      promptSpec = this.#promptSpecs.specFor(mcpServersOf(request, owner.state));
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
    const active: ActiveRun = {
      runId,
      controller,
      owner,
      done,
      clientToken: fullToken(request),
      finishing: false,
    };
    this.#active.set(key, active);
    const stopRenewing = this.#slots.keepAlive(lease);
    const execution = new RunExecution({
      options: this.#options,
      redactor: this.redactor,
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
      cacheScope: this.#cacheScope(tenant.id),
      signal: controller.signal,
    });
    let executed = false;
    return {
      conversationId,
      runId,
      checkpointForm: request.checkpointForm ?? "full",
      checkpointBase,
      finished: done,
      execute: async (sink) => {
        if (executed) throw new Error("a prepared run executes once");
        executed = true;
        const end = async (keepHead: boolean) => {
          // Keep the head only while it is the store's; anything else reloads next time.
          if (keepHead && isConsistent(owner.state)) this.#remember(key, owner);
          else this.#heads.forget(key);
          signal?.removeEventListener("abort", abort);
          stopRenewing();
          this.#active.delete(key);
          try {
            await release();
          } finally {
            finish();
          }
        };
        let outcome: RunOutcome;
        try {
          outcome = await execution.execute(sink);
        } catch (error) {
          await end(false);
          throw error;
        }
        // The answer is complete (`run.ended` went out); the run's record and usage records
        // follow. On a store that one process serves, the front door ends its response now and
        // the conversation's next request waits for them; where several processes share the
        // store, any of them may take the next turn at once, so they are written first.
        active.finishing = true;
        const shared = this.#options.store.sharedAcrossProcesses;
        // On a store one process owns, the records start once the front door has had this
        // call's answer back and ended its response (its `await` resumes first): SQLite writes
        // synchronously, and started here they would run ahead of the response's last bytes.
        const started = shared ? execution.finish() : afterThisTurnOfTheLoop(execution);
        const finished = started.then(
          () => end(true),
          (error: unknown) => end(false).then(() => Promise.reject(error)),
        );
        if (shared) {
          await finished;
        } else {
          finished.catch((error: unknown) =>
            this.#options.logger.error(
              { err: error, conversationId },
              "could not finish the run's records",
            ),
          );
        }
        return outcome;
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

  /**
   * The tenant's prompt-cache scope, derived once per tenant: setting up an HMAC key costs more
   * than planning a turn. The gateway's tenants are its configured tokens; a service embedded
   * with tenants of its own keeps at most `maxCachedScopes` of them.
   */
  #cacheScope(tenantId: string): string {
    let scope = this.#cacheScopes.get(tenantId);
    if (scope === undefined) {
      if (this.#cacheScopes.size >= maxCachedScopes) this.#cacheScopes.clear();
      scope = tenantCacheScope({ checkpointSecret: this.#options.checkpointSecret, tenantId });
      this.#cacheScopes.set(tenantId, scope);
    }
    return scope;
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
    const { conversationId } = request;
    // A chain (what a client of the delta form keeps), or the one checkpoint sent back.
    const tokens =
      request.checkpointChain ?? (request.checkpoint === undefined ? [] : [request.checkpoint]);
    const key = conversationKey(tenant.id, conversationId);
    const version = await this.#options.store.headVersion(tenant.id, conversationId);
    if (version !== undefined) {
      return this.#remember(
        key,
        await this.#loadStored({ tenant: tenant.id, conversationId, tokens, version }),
      );
    }
    if (hydrate !== undefined) {
      return this.#remember(
        key,
        this.#unstored(tenant, hydratedHead(conversationId, await hydrate())),
      );
    }
    if (tokens.length > 0) {
      const head = this.#checkpoints.decode({ tenant: tenant.id, conversationId, tokens });
      return this.#remember(key, this.#unstored(tenant, head));
    }
    if (request.action.type !== "user-message")
      throw new ConversationNotFoundError({ conversationId });
    return this.#unstored(tenant, createConversationHead({ conversationId }));
  }

  /**
   * A stored conversation's owner, reconciled with the checkpoint the client sent, if any. The
   * checkpoint must be genuine and of this conversation; it is decoded unless it is the token
   * this process handed out last for the current head (the usual case costs a hash), and then:
   * a checkpoint the store is ahead of changes nothing; one ahead of the store (another gateway
   * process with its own store served later turns) is adopted, the store catching up to it
   * first; one that diverged is refused (409, saying where). A stored state that fails
   * verification is repaired from a checkpoint that holds it; without one, the error says how
   * to recover.
   */
  async #loadStored({
    tenant,
    conversationId,
    tokens,
    version,
  }: {
    tenant: string;
    conversationId: string;
    /** The checkpoint sent back, or a delta client's chain (its last entry the latest). */
    tokens: readonly string[];
    version: HeadVersion;
  }): Promise<ConversationHeadOwner> {
    const token = { tenant, conversationId };
    // MAC and header first: a forged or foreign checkpoint is refused before any store read.
    const summaries = tokens.map((entry) => this.#checkpoints.inspect({ ...token, token: entry }));
    const checkpoint = tokens.at(-1);
    let owner: ConversationHeadOwner | undefined;
    let damage: StoreError | undefined;
    try {
      owner = await this.#current({ tenant, conversationId, version });
    } catch (error) {
      if (!StoreError.isInstance(error) || error.reason !== "corrupt") throw error;
      damage = error;
    }
    if (checkpoint === undefined) {
      if (damage !== undefined) throw damagedConversation({ conversationId, damage });
      return owner!;
    }
    if (owner !== undefined && owner.state.issuedCheckpointDigest === sha256Hex(checkpoint)) {
      return owner;
    }
    const latest = summaries.at(-1)!;
    if (tokens.length === 1 && isDeltaToken(checkpoint)) {
      // A delta alone cannot be decoded without its base. Its signed header says where the
      // client is: at or behind the stored head of the same epoch, the store has all it holds.
      const stored = owner?.state.head.history;
      if (
        stored !== undefined &&
        latest.epoch === stored.epoch &&
        (latest.messageCount < stored.length ||
          (latest.messageCount === stored.length && latest.headDigest === stored.headDigest))
      ) {
        return owner!;
      }
      this.#checkpoints.chainNeeded({
        conversationId,
        why:
          stored === undefined
            ? "its stored state failed verification and must be repaired from the client's"
            : "the checkpoint is ahead of or beside the stored conversation",
      });
    }
    const client = this.#checkpoints.decode({ ...token, tokens });
    if (owner === undefined) {
      owner = await this.#repair({ tenant, conversationId, version, client, damage: damage! });
    }
    const reconciliation = reconcileHeads({ stored: owner.state.head, client });
    switch (reconciliation.kind) {
      case "same":
      case "store-ahead":
        return owner;
      case "diverged":
        throw new RunConflictError({
          conversationId,
          message: `the checkpoint does not continue the stored conversation: ${reconciliation.reason}. Send the latest checkpoint of this conversation, or none to continue from the stored one`,
        });
      case "client-ahead": {
        const caughtUp = await catchUpToClient({
          store: this.#options.store,
          tenant,
          version,
          stored: owner.state.head,
          client,
          write: reconciliation.write,
        });
        return this.#current({ tenant, conversationId, version: caughtUp });
      }
      default: {
        const exhaustive: never = reconciliation;
        throw new Error(`unknown reconciliation ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /**
   * A stored conversation that failed verification, repaired from a client checkpoint that
   * holds its stored head (the checkpoint's messages are verified copies: MAC, blob hashes, and
   * their chain to the stored head digest), then loaded again.
   */
  async #repair({
    tenant,
    conversationId,
    version,
    client,
    damage,
  }: {
    tenant: string;
    conversationId: string;
    version: HeadVersion;
    client: ConversationHead;
    damage: StoreError;
  }): Promise<ConversationHeadOwner> {
    if (!coversStoredHead(client, version)) {
      throw damagedConversation({
        conversationId,
        damage,
        hint: `the checkpoint sent does not hold the stored head (epoch ${version.epoch}, ${version.messageCount} messages)`,
      });
    }
    const { history } = client;
    await this.#options.store.repairBlobs({
      messages: history.messages.slice(0, version.messageCount),
      digests: history.digestRange(0, version.messageCount),
    });
    try {
      return await this.#current({ tenant, conversationId, version });
    } catch (error) {
      if (!StoreError.isInstance(error) || error.reason !== "corrupt") throw error;
      throw damagedConversation({
        conversationId,
        damage: error,
        hint: "its messages were repaired from the checkpoint, but the rest of its stored state is damaged too",
      });
    }
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

  /** Keeps the head in memory, within the cache budget (least recently used out first). */
  #remember(key: string, owner: ConversationHeadOwner): ConversationHeadOwner {
    return this.#heads.remember(key, owner);
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
    // A run whose answer ended has nothing left to cancel.
    if (active === undefined || active.finishing || active.controller.signal.aborted) return false;
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
    const active = this.#active.get(key);
    const owner = active?.owner ?? this.#heads.get(key);
    const current = owner !== undefined && owner.state.head === head ? owner : undefined;
    // A client that sends its checkpoint back holds the compressed segments: they are taken
    // from its token for this encoding, and not kept in between (no second copy here).
    const clientToken = active?.clientToken;
    if (current !== undefined && clientToken !== undefined) {
      current.encodeCache.restoreParts(clientToken);
    }
    const token = this.#checkpoints.encode({
      head,
      tenant: tenant.id,
      promptSpecDigest,
      // Another head than the owner's would replace the segments of the one that is current.
      cache: current?.encodeCache,
    });
    if (current !== undefined) {
      current.dispatch({ type: "checkpoint-issued", digest: sha256Hex(token) });
      if (clientToken !== undefined) current.encodeCache.releaseParts();
      this.#heads.checkpointEncoded(key, current);
    }
    return token;
  }

  /** The stored conversation's head state (see `#storedOwner`). */
  async #storedState(tenant: Tenant, conversationId: string): Promise<HeadState> {
    return (await this.#storedOwner(tenant, conversationId)).state;
  }

  /**
   * The delta form of the run's checkpoint: only what the run added after `base` (the head it
   * started from). Recorded as issued like a full token, so sending it back costs a small hash.
   */
  issueCheckpointDelta({
    tenant,
    head,
    base,
    promptSpecDigest,
  }: {
    tenant: Tenant;
    head: ConversationHead;
    base: CheckpointBase;
    promptSpecDigest: string;
  }): string {
    const key = conversationKey(tenant.id, head.conversationId);
    const owner = this.#active.get(key)?.owner ?? this.#heads.get(key);
    const current = owner !== undefined && owner.state.head === head ? owner : undefined;
    const token = this.#checkpoints.encodeDelta({
      head,
      base,
      tenant: tenant.id,
      promptSpecDigest,
    });
    current?.dispatch({ type: "checkpoint-issued", digest: sha256Hex(token) });
    return token;
  }

  /**
   * The full checkpoint of the stored head (`GET /v1/conversations/{id}/checkpoint`): for a
   * client of the delta form that lost its chain.
   */
  async fullCheckpoint({ tenant, conversationId }: { tenant: Tenant; conversationId: string }) {
    const owner = await this.#storedOwner(tenant, conversationId);
    const { head, mcpServers } = owner.state;
    const token = this.#checkpoints.encode({
      head,
      tenant: tenant.id,
      // The spec the conversation's next continuation is built with (its latest MCP servers).
      promptSpecDigest: this.#promptSpecs.specFor(mcpServers).digest,
      cache: owner.encodeCache,
    });
    this.#heads.checkpointEncoded(conversationKey(tenant.id, conversationId), owner);
    return {
      checkpoint: token,
      epoch: head.history.epoch,
      messages: head.history.length,
      headDigest: head.history.headDigest,
    };
  }

  /**
   * The owner of the store's current head: the cached one when it is current (one indexed row
   * read, no history loaded or verified), else loaded once and remembered. During a run: that
   * run's owner as of its latest write. A damaged stored state fails with how to recover it.
   */
  async #storedOwner(tenant: Tenant, conversationId: string): Promise<ConversationHeadOwner> {
    const key = conversationKey(tenant.id, conversationId);
    const active = this.#active.get(key)?.owner;
    if (active !== undefined && active.state.version !== null) return active;
    const version = await this.#options.store.headVersion(tenant.id, conversationId);
    if (version === undefined) throw new ConversationNotFoundError({ conversationId });
    try {
      const owner = await this.#current({ tenant: tenant.id, conversationId, version });
      // A running conversation's owner is the run's: it is not replaced meanwhile.
      return this.#active.has(key) ? owner : this.#remember(key, owner);
    } catch (error) {
      // A damaged stored state fails with how to recover it.
      if (!StoreError.isInstance(error) || error.reason !== "corrupt") throw error;
      throw damagedConversation({ conversationId, damage: error });
    }
  }

  /** `GET /v1/conversations/{id}`: O(1) while the head is cached (the usual case). */
  async summary({ tenant, conversationId }: { tenant: Tenant; conversationId: string }) {
    const { head, version, usage } = (await this.#storedOwner(tenant, conversationId)).state;
    return {
      conversationId,
      epoch: version?.epoch ?? head.history.epoch,
      messages: version?.messageCount ?? head.history.length,
      headDigest: version?.headDigest ?? head.history.headDigest,
      usage: {
        inputTokens: usage.inputTokens,
        cachedInputTokens: usage.cachedInputTokens,
        cacheWriteTokens: usage.cacheWriteTokens,
        outputTokens: usage.outputTokens,
      },
    };
  }

  async history({ tenant, conversationId }: { tenant: Tenant; conversationId: string }) {
    return (await this.#storedState(tenant, conversationId)).head.history.messages;
  }

  /**
   * The current epoch's canonical history as JSON text (`[message, ...]`), streamed from the
   * store's bytes: each message's canonical JSON, verified against its content address, nothing
   * decoded or re-serialised, a large message read in pieces. Serving a conversation of large
   * images therefore holds the event loop for a piece at a time, never for the whole, and other
   * tenants' requests stay fast. Damage found before the first byte fails the request (with
   * how to recover); damage found later ends the stream early (the client sees invalid JSON).
   */
  async historyJson({
    tenant,
    conversationId,
  }: {
    tenant: Tenant;
    conversationId: string;
  }): Promise<AsyncIterable<Uint8Array>> {
    const damaged = (error: unknown): unknown =>
      StoreError.isInstance(error) && error.reason === "corrupt"
        ? damagedConversation({ conversationId, damage: error })
        : error;
    const stored = await this.#options.store
      .readHistory(tenant.id, conversationId)
      .catch((error) => {
        throw damaged(error);
      });
    if (stored === undefined) throw new ConversationNotFoundError({ conversationId });
    const messages = stored.messages[Symbol.asyncIterator]();
    const first = await messages.next().catch((error: unknown) => {
      throw damaged(error);
    });
    return (async function* () {
      yield jsonOpen;
      if (first.done === true) {
        yield jsonClose;
        return;
      }
      yield* first.value;
      for (;;) {
        const next = await messages.next().catch((error: unknown) => {
          throw damaged(error);
        });
        if (next.done === true) break;
        yield jsonComma;
        yield* next.value;
      }
      yield jsonClose;
    })();
  }

  /**
   * The last `limit` provider bodies, newest kept first when they exceed the byte cap (a body
   * at 5 000 turns is tens of MB: twenty of them must not become one answer of hundreds).
   */
  async providerRequests({
    tenant,
    conversationId,
    limit,
  }: {
    tenant: Tenant;
    conversationId: string;
    limit: number;
  }): Promise<{ requests: readonly ProviderRequestRecord[]; omitted: number }> {
    const key = conversationKey(tenant.id, conversationId);
    if (
      !this.#active.has(key) &&
      (await this.#options.store.headVersion(tenant.id, conversationId)) === undefined
    ) {
      throw new ConversationNotFoundError({ conversationId });
    }
    const page = this.requestLog.list({
      key,
      limit,
      maxBytes: this.#options.providerRequestsMaxBytes ?? 32 * 1024 * 1024,
    });
    // Bodies hold what was sent; a secret someone pasted into a message is not shown back.
    return { requests: this.redactor.redactValue(page.requests), omitted: page.omitted };
  }

  /** Resolves when the store can serve; throws a StoreError (`unavailable`) saying why not. */
  checkHealth(): Promise<void> {
    return this.#options.store.checkHealth();
  }

  /**
   * Resolves once every run of `tenant` whose answer ended has written its records (a run's
   * record, its usage records): what a read of them right after a run's `run.ended` waits for.
   */
  async recordsSettled({ tenant }: { tenant: string }): Promise<void> {
    const prefix = conversationKey(tenant, "");
    const finishing = [...this.#active.entries()]
      .filter(([key, run]) => run.finishing && key.startsWith(prefix))
      .map(([, run]) => run.done);
    if (finishing.length > 0) await Promise.all(finishing);
  }

  /** Stops taking runs, cancels the open ones and waits until each ended (nothing half-committed). */
  async shutdown(): Promise<void> {
    this.#closing = true;
    const open = [...this.#active.values()];
    for (const run of open) run.controller.abort(new Error("the gateway is shutting down"));
    await Promise.all(open.map((run) => run.done));
  }
}

const jsonOpen = Buffer.from("[");
const jsonComma = Buffer.from(",");
const jsonClose = Buffer.from("]");

/**
 * The error of a stored conversation that failed verification: what failed, and how the client
 * recovers it (its own latest checkpoint holds the verified state), or why it could not be.
 */
function damagedConversation({
  conversationId,
  damage,
  hint,
}: {
  conversationId: string;
  damage: StoreError;
  hint?: string;
}): StoreError {
  return new StoreError({
    reason: "corrupt",
    message: `conversation ${conversationId}: the stored state failed verification (${damage.message}); ${
      hint === undefined
        ? "send the conversation's latest checkpoint (the `checkpoint` event of its last run) with the next request to recover it"
        : `${hint}: send the conversation's latest checkpoint to recover it`
    }`,
    cause: damage,
  });
}

/** Log details with every error, text and value in them redacted. */
function redactLogDetails(
  details: Record<string, unknown>,
  redactor: SecretRedactor,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(details).map(([name, value]) => [
      name,
      value instanceof Error
        ? redactor.redactError(value)
        : typeof value === "string"
          ? redactor.redact(value)
          : redactor.redactValue(value),
    ]),
  );
}

/** The MCP servers of a request's prompt spec: its own request context's, else the latest. */
function mcpServersOf(
  request: AgentRunRequest,
  state: HeadState,
): readonly McpServerInput[] | undefined {
  // A tool-results continuation (no request context) sends the same tools as the turn it continues.
  return request.requestContext === undefined
    ? state.mcpServers
    : request.requestContext.mcp?.servers;
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

/**
 * The full checkpoint a request sent back, if any (a delta client's chain holds deltas). Only a
 * request whose checkpoint was verified (issued by this process, or decoded whole) gets this far.
 */
function fullToken(request: AgentRunRequest): string | undefined {
  const token = request.checkpointChain === undefined ? request.checkpoint : undefined;
  return token?.startsWith("cp2.") === true ? token : undefined;
}

/** A delta checkpoint (token format 3): genuine without its base, but not decodable alone. */
function isDeltaToken(token: string): boolean {
  return token.startsWith("cp3.");
}

const maxCachedScopes = 1_024;

/** `execution.finish()`, started after everything already queued (the front door's resume). */
function afterThisTurnOfTheLoop(execution: RunExecution): Promise<void> {
  return nextTurn().then(() => execution.finish());
}
