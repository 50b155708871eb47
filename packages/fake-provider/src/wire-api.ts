import type { FakeErrorStatus, NormalizedReply } from "./fake-reply.js";
import type { CacheMode } from "./prefix-cache-simulator.js";
import type { PromptSegment } from "./prompt-segments.js";
import type { ReasoningSeal } from "./reasoning-seal.js";

/** The three wire APIs the fake provider serves. */
export type FakeApi = "openai-responses" | "openai-chat" | "anthropic";

export type JsonRecord = Record<string, unknown>;

/** One server-sent event. `event` is omitted for APIs that send data-only events (Chat). */
export interface SseFrame {
  readonly event?: string;
  readonly data: string;
}

/** Why a request is answered with an error instead of a model answer. */
export type WireError =
  | { readonly kind: "invalid-request"; readonly message: string; readonly param?: string }
  | {
      readonly kind: "context-overflow";
      readonly inputTokens: number;
      readonly contextWindow: number;
    }
  | {
      readonly kind: "status";
      readonly status: FakeErrorStatus;
      readonly retryAfterSeconds: number | undefined;
      readonly message: string | undefined;
      /** Replaces the API's own error code / type for the status. */
      readonly code: string | undefined;
    };

/** An HTTP answer with a JSON body. */
export interface JsonAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** Token figures of one answer, in the simulation's terms. */
export interface AnswerUsage {
  /** Every input token (cached and cache-written included). */
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  readonly cacheWriteTokens1h: number;
  readonly uncachedTokens: number;
  /** Every output token, reasoning included. */
  readonly outputTokens: number;
  readonly reasoningTokens: number;
}

/** Deterministic ids (`resp_…`, `call_…`, …) from a per-server counter. */
export type IdSource = (prefix: string) => string;

export interface AnswerContext {
  readonly body: JsonRecord;
  readonly model: string;
  readonly createdAtSeconds: number;
  readonly usage: AnswerUsage;
  /** OpenAI: report `cache_write_tokens` (see `RenderedPrompt.reportsCacheWrites`). */
  readonly reportsCacheWrites: boolean;
  readonly nextId: IdSource;
  readonly seal: ReasoningSeal;
}

/** What the cache simulation needs from a received body. */
export interface RenderedPrompt {
  readonly mode: CacheMode;
  readonly namespace: string;
  readonly segments: readonly PromptSegment[];
  /** Lifetime of this request's entries when the body asks for one (e.g. 24 h retention). */
  readonly ttlMs?: number;
  /** OpenAI: the body turns caching off (`prompt_cache_options.mode: "explicit"`, no breakpoints). */
  readonly noCaching?: boolean;
  /** OpenAI: the model reports (and bills) cache writes as `cache_write_tokens`. */
  readonly reportsCacheWrites?: boolean;
  /** Anthropic: every `cache_control` marker in the body. */
  readonly markerCount?: number;
}

export type AnswerPlan = Extract<NormalizedReply, { kind: "answer" }>;

/** One provider API: request validation, prompt rendering and answer rendering. */
export interface WireApi {
  readonly api: FakeApi;
  readonly path: string;
  /** Structural check of a received body; returns an error message or undefined. */
  validate(body: unknown, seal: ReasoningSeal): WireError | undefined;
  render(body: JsonRecord): RenderedPrompt;
  isStream(body: JsonRecord): boolean;
  error(error: WireError, requestId: string): JsonAnswer;
  streamFrames(plan: AnswerPlan, context: AnswerContext): SseFrame[];
  /** Recorded events of a `stream` reply, framed the way this API streams. */
  rawFrames(events: readonly unknown[]): SseFrame[];
  json(plan: AnswerPlan, context: AnswerContext): unknown;
}

/** Builds the `WireError` of a scripted error / overflow reply. */
export function scriptedError(
  reply: Exclude<NormalizedReply, { kind: "answer" | "stream" }>,
  inputTokens: number,
  contextWindow: number,
): WireError {
  switch (reply.kind) {
    case "context-overflow":
      return {
        kind: "context-overflow",
        inputTokens,
        contextWindow: Math.min(contextWindow, Math.max(0, inputTokens - 1)),
      };
    case "error":
      return {
        kind: "status",
        status: reply.status,
        retryAfterSeconds: reply.retryAfterSeconds,
        message: reply.message,
        code: reply.code,
      };
    default: {
      const exhaustive: never = reply;
      throw new Error(`unknown error reply ${JSON.stringify(exhaustive)}`);
    }
  }
}

/** Frames of a `stream` reply for APIs that name each SSE event by its `type`. */
export function namedFrames(events: readonly unknown[]): SseFrame[] {
  return events.map((event) => {
    const type =
      typeof event === "object" && event !== null && "type" in event ? event.type : undefined;
    return {
      ...(typeof type === "string" ? { event: type } : {}),
      data: JSON.stringify(event),
    };
  });
}

/** Formats zod-style issues as one line: `path: message; …`. */
export function describeIssues(
  issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[],
): string {
  return issues
    .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}
