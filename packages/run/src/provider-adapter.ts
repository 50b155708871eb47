import type { JsonValue } from "./canonical-message.js";
import type { ModelRequest } from "./model-request.js";

/** Token usage of one provider call. `inputTokens` includes cached and cache-write tokens. */
export interface Usage {
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  /**
   * Of `cacheWriteTokens`, those written with a 1-hour lifetime (Anthropic bills them 2× instead
   * of 1.25×). Present only when the provider reported such writes.
   */
  readonly cacheWrite1hTokens?: number;
  readonly outputTokens: number;
}

export type FinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "other";

/** Normalised stream events every provider adapter yields. */
export type ProviderEvent =
  | { readonly type: "text-delta"; readonly text: string }
  | { readonly type: "reasoning-delta"; readonly text: string }
  | {
      readonly type: "tool-call";
      readonly index: number;
      readonly callId: string;
      readonly name: string;
      /** The exact JSON text the model produced. */
      readonly arguments: string;
    }
  | { readonly type: "usage"; readonly usage: Usage }
  /** Provider state to replay with this assistant message next turn; the last one wins. */
  | { readonly type: "replay"; readonly state: JsonValue }
  /**
   * Something in the stream this adapter could not use (an unknown field shape, a part it
   * ignores): reported, never thrown, so an odd server never fails or retries a call.
   */
  | { readonly type: "warning"; readonly warning: Warning }
  | { readonly type: "finish"; readonly reason: FinishReason };

/** Survivable oddities found while serialising or streaming (never thrown). */
export interface Warning {
  readonly type: "unsupported" | "dropped" | "other";
  readonly message: string;
  /** Where in the request (e.g. `messages[3].content[1]`) or stream chunk it was found. */
  readonly path?: string;
}

export interface SerializedRequest<Body = unknown> {
  /** The exact wire body; serialising it with `JSON.stringify` gives the bytes sent. */
  readonly body: Body;
  readonly warnings: readonly Warning[];
}

export interface StreamOptions<Body = unknown> {
  readonly signal?: AbortSignal;
  /**
   * What `serialize(request)` returned, when the caller already has it (a gateway records the
   * body it sends): the adapter sends this body instead of serialising the request again. It must
   * be that result: `serialize` is deterministic, so the bytes are the same either way.
   */
  readonly serialized?: SerializedRequest<Body>;
}

/**
 * The contract a provider package implements. `serialize` is pure and deterministic; `stream`
 * sends what `serialize` produces and yields normalised events, throwing the typed
 * `ProviderError`s of this package on failure.
 */
export interface ProviderAdapter<Body = unknown> {
  /** e.g. `openai-responses`; also the key of this provider's entry in the replay bag. */
  readonly id: string;
  serialize(request: ModelRequest): SerializedRequest<Body>;
  stream(request: ModelRequest, options?: StreamOptions<Body>): AsyncIterable<ProviderEvent>;
}
