import { createHash, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Usage } from "@cursor/run";
import { z } from "zod";
import { anthropicCountTokensSchema, anthropicWire } from "./anthropic-wire.js";
import { fakeReplySchema, normalizeReply } from "./fake-reply.js";
import type { FakeReply } from "./fake-reply.js";
import { openaiChatWire } from "./openai-chat-wire.js";
import { openaiResponsesWire } from "./openai-responses-wire.js";
import { PrefixCacheSimulator } from "./prefix-cache-simulator.js";
import type { CacheStats, PrefixCacheResult } from "./prefix-cache-simulator.js";
import { ReasoningSeal } from "./reasoning-seal.js";
import { CacheMarkerLimitError, InvalidFakeReplyError } from "./fake-provider-errors.js";
import { countTokens } from "./token-count.js";
import type {
  AnswerContext,
  AnswerUsage,
  FakeApi,
  JsonAnswer,
  WireApi,
  WireError,
} from "./wire-api.js";
import { describeIssues, scriptedError } from "./wire-api.js";
import {
  isRecord,
  publicHeaders,
  readBody,
  sendJson,
  sendStream,
  sendTruncatedJson,
  sleep,
} from "./fake-provider-http.js";

export interface FakeProviderCacheOptions {
  /** Milliseconds since the epoch; inject a fixed clock for deterministic TTLs. */
  readonly clock?: () => number;
  /** Idle lifetime of a cache entry. Default 5 minutes. */
  readonly ttlMs?: number;
  /** Anthropic: minimum cacheable prefix. Default 1024. */
  readonly anthropicMinTokens?: number;
  /** OpenAI: nothing is cached below this. Default 1024. */
  readonly openaiMinTokens?: number;
}

export interface FakeProviderOptions {
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly cache?: FakeProviderCacheOptions;
  /**
   * Answer when no scripted reply is queued. Default `{type: "text", text: "OK"}`;
   * `scriptedAgentReply` makes the server a small deterministic agent.
   */
  readonly defaultReply?: FakeReply | ((request: RecordedRequest) => FakeReply);
  /**
   * Serve the `/_fake/*` control endpoints (scripting, recorded requests, stats). Default true.
   * Turn them off when other local processes must not script the server or read the bodies it
   * received (the gateway's `simulated` provider): they then answer 404.
   */
  readonly control?: boolean;
  /**
   * Keep every request in `requests` (default true). Off, nothing is kept: a long-running server
   * stays within constant memory apart from the cache simulation's own entries.
   */
  readonly recordRequests?: boolean;
  /**
   * When set, any request with more input tokens than this is answered with the API's
   * context-overflow error (no scripted reply is used up).
   */
  readonly contextWindow?: number;
  /** Key of the thinking signatures and encrypted reasoning. Default: a fixed test key. */
  readonly signingSecret?: string;
  /**
   * When set, the instance is private: every route but `/healthz` (the three APIs and the
   * `/_fake/*` control routes, which expose every request body) answers 401 unless the request
   * carries this token as `Authorization: Bearer <token>` or `x-api-key` (what the SDKs send as
   * their API key). Unset: open to any caller, as a test double usually is.
   */
  readonly accessToken?: string;
  /**
   * How long an idle keep-alive connection stays open (ms). Default `defaultKeepAliveTimeoutMs`
   * (a minute), not Node's 5 s: a client whose event loop is busy for longer than this (a
   * gateway serialising megabyte bodies, 16 at once) sends its next request on a connection the
   * server closed meanwhile, and fetch fails it ("other side closed"; the OpenAI SDK's
   * "Connection error.") before the client can notice the close.
   */
  readonly keepAliveTimeoutMs?: number;
}

/**
 * A minute, like the bench's pass-through proxy: idle connections outlive any pause of a
 * healthy client, as they do at the providers this server stands in for.
 */
export const defaultKeepAliveTimeoutMs = 60_000;

/** The simulation's verdict on a request, plus how its tokens were counted. */
export interface RequestCacheDiagnostics extends PrefixCacheResult {
  /** `o200k`, or for Anthropic `o200k (stand-in for Anthropic's tokenizer)`. */
  readonly tokenizer: string;
  /** What sits at each rendered segment (`tools`, `input item 3`, `message 2 block 0`, …). */
  readonly segmentLabels: readonly string[];
}

/** One request the fake provider received. */
export interface RecordedRequest {
  /** Order of arrival, from 0 (kept across `reset()`: never reused). */
  readonly sequence: number;
  /** Clock time of arrival (the cache clock). */
  readonly at: number;
  readonly api: FakeApi;
  readonly method: string;
  readonly path: string;
  /** Request headers minus secrets (authorization, x-api-key, api-key, cookies). */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, in received key order (undefined when it was not JSON). */
  readonly body: unknown;
  readonly stream: boolean;
  /** HTTP status answered. */
  readonly status: number;
  /** The scripted (or default) reply used; null when the request was refused before that. */
  readonly reply: FakeReply | null;
  /** Normalised usage reported to the client; null for errors. */
  readonly usage: Usage | null;
  /** Cache simulation of this request; null when it was refused before the simulation. */
  readonly cache: RequestCacheDiagnostics | null;
  /** The error answered, if any. */
  readonly error: { readonly status: number; readonly body: unknown } | null;
}

export interface FakeProvider {
  /** e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  /** `${url}/v1`: the `baseURL` of the openai SDK. */
  readonly openaiBaseURL: string;
  /** `url`: the `baseURL` of @anthropic-ai/sdk. */
  readonly anthropicBaseURL: string;
  readonly port: number;
  /** Every request received since start (or the last `reset()`), oldest first. */
  readonly requests: readonly RecordedRequest[];
  /** The simulator behind the usage figures (for direct inspection). */
  readonly simulator: PrefixCacheSimulator;
  /** Queues replies (FIFO, shared by the three APIs). Throws `InvalidFakeReplyError`. */
  enqueue(...replies: FakeReply[]): void;
  /** Replies still queued. */
  pendingReplies(): number;
  /** Cache totals per session (namespace) and overall. */
  cacheStats(): CacheStats;
  /** Forgets queued replies, recorded requests and every cache entry. */
  reset(): void;
  close(): Promise<void>;
}

const wires: readonly WireApi[] = [openaiResponsesWire, openaiChatWire, anthropicWire];
const defaultSigningSecret = "cursor-testkit-fake-provider";
const enqueueBodySchema = z.object({ replies: z.array(z.unknown()).min(1) });
let instances = 0;

/** Starts a real HTTP server speaking OpenAI Responses, Chat Completions and Anthropic Messages. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? defaultKeepAliveTimeoutMs;
  if (!Number.isSafeInteger(keepAliveTimeoutMs) || keepAliveTimeoutMs < 0) {
    throw new RangeError(
      `keepAliveTimeoutMs must be a non-negative integer (ms), got ${String(keepAliveTimeoutMs)}`,
    );
  }
  instances += 1;
  const instance = instances;
  const clock = options.cache?.clock ?? Date.now;
  const simulator = new PrefixCacheSimulator({
    clock,
    ...(options.cache?.ttlMs === undefined ? {} : { ttlMs: options.cache.ttlMs }),
    ...(options.cache?.openaiMinTokens === undefined
      ? {}
      : { openaiMinTokens: options.cache.openaiMinTokens }),
    ...(options.cache?.anthropicMinTokens === undefined
      ? {}
      : { anthropicMinTokens: options.cache.anthropicMinTokens }),
  });
  const seal = new ReasoningSeal(options.signingSecret ?? defaultSigningSecret);
  const queue: FakeReply[] = [];
  let requests: RecordedRequest[] = [];
  let sequence = 0;
  let idCounter = 0;
  // Deterministic ids, unique per server instance so generated call ids never collide.
  const nextId = (prefix: string): string => {
    idCounter += 1;
    return `${prefix}_f${instance}n${idCounter.toString().padStart(6, "0")}`;
  };
  const open = new Set<ServerResponse>();
  const keepRequests = options.recordRequests ?? true;
  const record = (request: RecordedRequest): void => {
    if (keepRequests) requests.push(request);
  };

  const enqueue = (...replies: FakeReply[]): void => {
    const checked = replies.map((reply, index) => {
      const parsed = fakeReplySchema.safeParse(reply);
      if (!parsed.success) {
        const issues = parsed.error.issues.map(
          (issue) => `${[index, ...issue.path].map(String).join(".")}: ${issue.message}`,
        );
        throw new InvalidFakeReplyError({
          message: `invalid fake reply: ${issues.join("; ")}`,
          issues,
          cause: parsed.error,
        });
      }
      return reply;
    });
    queue.push(...checked);
  };

  const resolveDefault = (request: RecordedRequest): FakeReply => {
    const fallback = options.defaultReply ?? { type: "text", text: "OK" };
    return typeof fallback === "function" ? fallback(request) : fallback;
  };

  const handleApi = async (
    wire: WireApi,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> => {
    const at = clock();
    const requestId = nextId("req");
    const raw = await readBody(req);
    let body: unknown;
    let parseError: WireError | undefined;
    if (raw === undefined) {
      parseError = { kind: "invalid-request", message: "The request body is too large." };
    } else {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        parseError = {
          kind: "invalid-request",
          message: "We could not parse the JSON body of your request.",
        };
      }
    }
    const base = {
      sequence: sequence++,
      at,
      api: wire.api,
      method: req.method ?? "POST",
      path: req.url ?? wire.path,
      headers: publicHeaders(req),
      body,
      stream: isRecord(body) && wire.isStream(body),
    };
    const refuse = (
      error: WireError,
      extra: { reply?: FakeReply; cache?: RequestCacheDiagnostics } = {},
    ) => {
      const answer = wire.error(error, requestId);
      record({
        ...base,
        status: answer.status,
        reply: extra.reply ?? null,
        usage: null,
        cache: extra.cache ?? null,
        error: { status: answer.status, body: answer.body },
      });
      sendJson(res, answer);
    };

    const invalid = parseError ?? wire.validate(body, seal);
    if (invalid !== undefined || !isRecord(body)) {
      refuse(invalid ?? { kind: "invalid-request", message: "The body must be a JSON object." });
      return;
    }
    const rendered = wire.render(body);
    const inputTokens = rendered.segments.reduce((sum, segment) => sum + segment.tokens, 0);
    if (options.contextWindow !== undefined && inputTokens > options.contextWindow) {
      refuse({ kind: "context-overflow", inputTokens, contextWindow: options.contextWindow });
      return;
    }
    const reply =
      queue.shift() ??
      resolveDefault({
        ...base,
        status: 200,
        reply: null,
        usage: null,
        cache: null,
        error: null,
      });
    const plan = normalizeReply(reply);
    if (plan.kind === "context-overflow" || plan.kind === "error") {
      refuse(scriptedError(plan, inputTokens, options.contextWindow ?? inputTokens - 1), { reply });
      return;
    }
    if (plan.kind === "stream" && !base.stream) {
      refuse(
        { kind: "invalid-request", message: "A `stream` reply needs a streaming request." },
        { reply },
      );
      return;
    }
    let result: PrefixCacheResult;
    try {
      result =
        rendered.mode === "openai"
          ? simulator.simulateOpenAI({
              namespace: rendered.namespace,
              segments: rendered.segments,
              ttlMs: rendered.ttlMs,
              caching: rendered.noCaching !== true,
              reportsCacheWrites: rendered.reportsCacheWrites === true,
            })
          : simulator.simulateAnthropic({
              namespace: rendered.namespace,
              segments: rendered.segments,
            });
    } catch (error) {
      if (!CacheMarkerLimitError.isInstance(error)) throw error;
      refuse({ kind: "invalid-request", message: error.message }, { reply });
      return;
    }
    const diagnostics: RequestCacheDiagnostics = {
      ...result,
      tokenizer:
        rendered.mode === "anthropic" ? "o200k (stand-in for Anthropic's tokenizer)" : "o200k",
      segmentLabels: rendered.segments.map((segment) => segment.label),
    };
    const headers = { [wire.api === "anthropic" ? "request-id" : "x-request-id"]: requestId };
    if (plan.kind === "stream") {
      // Recorded events carry their own usage; the simulation still ran (diagnostics, entries).
      record({ ...base, status: 200, reply, usage: null, cache: diagnostics, error: null });
      await sendStream({
        res,
        frames: wire.rawFrames(plan.events),
        headers,
        cutAfterEvents: plan.cutAfterEvents,
        delayMsPerEvent: plan.delayMsPerEvent,
      });
      return;
    }
    const reasoningTokens = plan.reasoning.reduce(
      (sum, step) => sum + countTokens(step.reasoning),
      0,
    );
    const answerText =
      plan.commentary.join("") +
      (plan.answer.type === "tool-calls"
        ? plan.answer.text + plan.answer.calls.map((call) => call.name + call.arguments).join("")
        : plan.answer.text);
    const outputTokens = Math.max(1, reasoningTokens + countTokens(answerText));
    const usage: AnswerUsage = {
      inputTokens: result.inputTokens,
      cachedTokens: result.cachedTokens,
      cacheWriteTokens: result.cacheWriteTokens,
      cacheWriteTokens1h: result.cacheWriteTokens1h,
      uncachedTokens: result.uncachedTokens,
      outputTokens,
      reasoningTokens,
    };
    const context: AnswerContext = {
      body,
      model: String(body.model),
      createdAtSeconds: Math.floor(at / 1000),
      usage,
      reportsCacheWrites: rendered.reportsCacheWrites === true,
      nextId,
      seal,
    };
    record({
      ...base,
      status: 200,
      reply,
      usage: {
        inputTokens: result.inputTokens,
        cachedInputTokens: result.cachedTokens,
        cacheWriteTokens: result.cacheWriteTokens,
        ...(result.cacheWriteTokens1h > 0 ? { cacheWrite1hTokens: result.cacheWriteTokens1h } : {}),
        outputTokens,
      },
      cache: diagnostics,
      error: null,
    });
    if (base.stream) {
      await sendStream({
        res,
        frames: wire.streamFrames(plan, context),
        headers,
        cutAfterEvents: plan.cutAfterEvents,
        delayMsPerEvent: plan.delayMsPerEvent,
      });
      return;
    }
    // A non-streaming `slow` answer waits as long as its stream would have taken.
    const eventCount = wire.streamFrames(plan, { ...context, nextId: () => "scratch" }).length;
    await sleep(plan.delayMsPerEvent * eventCount, res);
    const answer: JsonAnswer = { status: 200, headers, body: wire.json(plan, context) };
    if (plan.cutAfterEvents !== undefined) {
      sendTruncatedJson(res, answer);
      return;
    }
    sendJson(res, answer);
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    const method = req.method ?? "GET";
    if (method === "GET" && path === "/_fake/requests") {
      sendJson(res, { status: 200, headers: {}, body: { requests } });
      return;
    }
    if (method === "GET" && path === "/_fake/stats") {
      sendJson(res, { status: 200, headers: {}, body: simulator.stats() });
      return;
    }
    if (method === "POST" && path === "/_fake/reset") {
      provider.reset();
      sendJson(res, { status: 200, headers: {}, body: { ok: true } });
      return;
    }
    if (method === "POST" && path === "/_fake/enqueue") {
      const raw = await readBody(req);
      let parsed: unknown;
      try {
        parsed = raw === undefined ? undefined : JSON.parse(raw.toString("utf8"));
      } catch {
        parsed = undefined;
      }
      const envelope = enqueueBodySchema.safeParse(parsed);
      if (!envelope.success) {
        sendJson(res, {
          status: 400,
          headers: {},
          body: { error: { message: describeIssues(envelope.error.issues) } },
        });
        return;
      }
      try {
        provider.enqueue(...(envelope.data.replies as FakeReply[]));
      } catch (error) {
        if (!InvalidFakeReplyError.isInstance(error)) throw error;
        sendJson(res, {
          status: 400,
          headers: {},
          body: { error: { message: error.message, issues: error.issues } },
        });
        return;
      }
      sendJson(res, { status: 200, headers: {}, body: { queued: queue.length } });
      return;
    }
    sendJson(res, {
      status: 404,
      headers: {},
      body: { error: { message: `no route ${method} ${path}` } },
    });
  };

  // Anthropic's token counting endpoint, answered with the simulation's own (o200k) count.
  const handleCountTokens = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = raw === undefined ? undefined : JSON.parse(raw.toString("utf8"));
    } catch {
      body = undefined;
    }
    const parsed = anthropicCountTokensSchema.safeParse(body);
    if (!parsed.success || !isRecord(body)) {
      const message = parsed.success
        ? "The body must be a JSON object."
        : describeIssues(parsed.error.issues);
      sendJson(res, anthropicWire.error({ kind: "invalid-request", message }, nextId("req")));
      return;
    }
    const tokens = anthropicWire
      .render(body)
      .segments.reduce((sum, segment) => sum + segment.tokens, 0);
    sendJson(res, { status: 200, headers: {}, body: { input_tokens: tokens } });
  };

  const accessToken =
    options.accessToken === undefined
      ? undefined
      : createHash("sha256").update(options.accessToken).digest();
  const authorized = (req: IncomingMessage): boolean => {
    if (accessToken === undefined) return true;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
    const header = req.headers["x-api-key"];
    const presented = bearer ?? (typeof header === "string" ? header : undefined);
    if (presented === undefined) return false;
    // Digests of equal length, compared in constant time.
    return timingSafeEqual(createHash("sha256").update(presented).digest(), accessToken);
  };

  const server: Server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const wire =
      req.method === "POST" ? wires.find((candidate) => candidate.path === path) : undefined;
    if (path !== "/healthz" && !authorized(req)) {
      // Drain what was sent, then answer in the API's own 401 shape (or a plain one).
      req.resume();
      sendJson(
        res,
        (wire ?? openaiResponsesWire).error(
          {
            kind: "status",
            status: 401,
            retryAfterSeconds: undefined,
            message: "This fake provider is private: send its access token.",
            code: undefined,
          },
          nextId("req"),
        ),
      );
      return;
    }
    const work =
      wire !== undefined
        ? handleApi(wire, req, res)
        : req.method === "POST" && path === "/v1/messages/count_tokens"
          ? handleCountTokens(req, res)
          : path === "/healthz"
            ? Promise.resolve(sendJson(res, { status: 200, headers: {}, body: { ok: true } }))
            : path.startsWith("/_fake/") && options.control !== false
              ? handleControl(req, res, path)
              : Promise.resolve(
                  sendJson(res, {
                    status: 404,
                    headers: {},
                    body: {
                      error: {
                        message: `Unknown route ${req.method} ${path}`,
                        type: "invalid_request_error",
                      },
                    },
                  }),
                );
    work.catch((error: unknown) => {
      if (!res.headersSent) {
        sendJson(res, {
          status: 500,
          headers: {},
          body: {
            error: { message: `fake provider failure: ${String(error)}`, type: "server_error" },
          },
        });
      } else {
        res.destroy();
      }
    });
  });

  // Node answers `Keep-Alive: timeout=<s>` from this, and fetch keeps its pooled connection a
  // little less than that, so both sides agree on when an idle connection is gone.
  server.keepAliveTimeout = keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  const provider: FakeProvider = {
    url,
    openaiBaseURL: `${url}/v1`,
    anthropicBaseURL: url,
    port: address.port,
    get requests() {
      return requests;
    },
    simulator,
    enqueue,
    pendingReplies: () => queue.length,
    cacheStats: () => simulator.stats(),
    reset() {
      queue.length = 0;
      requests = [];
      simulator.reset();
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        for (const res of open) res.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
  return provider;
}
