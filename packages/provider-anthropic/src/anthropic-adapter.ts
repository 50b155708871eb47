import { Anthropic } from "@anthropic-ai/sdk";
import { JsonBodyStream, RunCancelledError } from "@cursor/run";
import type {
  ModelRequest,
  ProviderAdapter,
  ProviderEvent,
  SerializedRequest,
  StreamOptions,
} from "@cursor/run";
import type { AnthropicBody, AnthropicCacheTtl } from "./anthropic-api.js";
import { isValidAnthropicTtlOrder } from "./anthropic-cache-hints.js";
import { toAnthropicProviderError } from "./anthropic-errors.js";
import { anthropicProviderId } from "./anthropic-replay-state.js";
import { convertAnthropicStream } from "./convert-anthropic-stream.js";
import { serializeAnthropicRequest } from "./serialize-anthropic-request.js";

export const defaultAnthropicMaxTokens = 8192;

export interface AnthropicAdapterOptions {
  /** Defaults to the SDK's own resolution (`ANTHROPIC_API_KEY`). */
  readonly apiKey?: string;
  readonly baseURL?: string;
  /** Extra headers on every request (e.g. `anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per-request timeout; the SDK default when absent. */
  readonly timeoutMs?: number;
  /** `max_tokens` when a request sets no `maxOutputTokens` (default 8192; the API needs one). */
  readonly maxTokens?: number;
  /** TTL of the history cache markers; the API default (5 minutes) when absent. */
  readonly cacheTtl?: AnthropicCacheTtl;
  /**
   * TTL of the markers on the tools and the system prompt, which every turn of every
   * conversation with this prompt reads: `"1h"` keeps them across pauses longer than five
   * minutes (writes cost 2× instead of 1.25×). Defaults to `cacheTtl`; never shorter than it.
   */
  readonly stablePrefixCacheTtl?: AnthropicCacheTtl;
  /** Extended thinking with this token budget (at least 1024 per the API). */
  readonly thinking?: { readonly budgetTokens: number };
  readonly fetch?: typeof fetch;
}

function validateOptions(options: AnthropicAdapterOptions): void {
  const maxTokens = options.maxTokens ?? defaultAnthropicMaxTokens;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  }
  const stable = options.stablePrefixCacheTtl ?? options.cacheTtl;
  if (!isValidAnthropicTtlOrder({ stablePrefixTtl: stable, historyTtl: options.cacheTtl })) {
    throw new RangeError(
      `stablePrefixCacheTtl "${String(stable)}" is shorter than cacheTtl "${String(options.cacheTtl)}": the API wants markers with a longer TTL before shorter ones`,
    );
  }
  const budget = options.thinking?.budgetTokens;
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 1024)) {
    throw new RangeError(`thinking.budgetTokens must be an integer ≥ 1024, got ${budget}`);
  }
}

/**
 * The Anthropic Messages `ProviderAdapter` (`id: "anthropic"`). `serialize` is pure; `stream`
 * sends exactly the serialised body through the official SDK with its retries off (the model
 * loop owns retries and backoff) and yields normalised events, throwing typed `@cursor/run`
 * errors: `RunCancelledError` when the signal aborts, the classified provider errors otherwise.
 */
export function createAnthropicAdapter(
  options: AnthropicAdapterOptions = {},
): ProviderAdapter<AnthropicBody> {
  validateOptions(options);
  const serializeOptions = {
    maxTokens: options.maxTokens ?? defaultAnthropicMaxTokens,
    ...(options.cacheTtl === undefined ? {} : { cacheTtl: options.cacheTtl }),
    ...(options.stablePrefixCacheTtl === undefined
      ? {}
      : { stablePrefixCacheTtl: options.stablePrefixCacheTtl }),
    ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
  };
  const client = new Anthropic({
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.headers === undefined ? {} : { defaultHeaders: { ...options.headers } }),
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    maxRetries: 0,
  });

  const serialize = (request: ModelRequest): SerializedRequest<AnthropicBody> =>
    serializeAnthropicRequest({ request, options: serializeOptions });

  async function* stream(
    request: ModelRequest,
    streamOptions: StreamOptions<AnthropicBody> = {},
  ): AsyncGenerator<ProviderEvent> {
    const { signal } = streamOptions;
    const { body } = streamOptions.serialized ?? serialize(request);
    try {
      if (signal?.aborted === true) throw new RunCancelledError({ cause: signal.reason });
      const events = await client.messages.create(body, {
        // The same bytes as the SDK's `JSON.stringify(body)`, in pieces: the SDK hands a stream
        // body to `fetch` as it is (json-body.ts in @cursor/run says why).
        body: JsonBodyStream.of(body),
        headers: { "content-type": "application/json" },
        ...(signal === undefined ? {} : { signal }),
      });
      yield* convertAnthropicStream(events);
    } catch (error) {
      // The SDK ends an aborted stream quietly, which would otherwise read as a cut stream: the
      // classifier checks the signal first.
      throw toAnthropicProviderError(error, { signal });
    }
  }

  return { id: anthropicProviderId, serialize, stream };
}
