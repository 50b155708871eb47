import { AuthenticationError, JsonBodyStream } from "@cursor/run";
import type { ModelRequest, ProviderAdapter, ProviderEvent, StreamOptions } from "@cursor/run";
import OpenAI from "openai";
import type { OpenAIChatBody } from "./openai-chat-api.js";
import { openAIChatProviderId } from "./openai-chat-api.js";
import type {
  OpenAIChatPromptCacheOptions,
  OpenAIChatPromptCacheRetention,
} from "./openai-chat-cache-hints.js";
import { assertOneChatCacheSetting } from "./openai-chat-cache-hints.js";
import type { OpenAIChatSystemRole } from "./convert-to-openai-chat-input.js";
import { toOpenAIChatProviderError } from "./openai-chat-errors.js";
import type { OpenAIChatSerializeSettings } from "./serialize-openai-chat-request.js";
import { serializeOpenAIChatRequest } from "./serialize-openai-chat-request.js";
import { convertOpenAIChatStream } from "./convert-openai-chat-stream.js";

export interface OpenAIChatAdapterOptions {
  /** Defaults to the SDK's `OPENAI_API_KEY` environment variable, read on the first call. */
  readonly apiKey?: string;
  /** An OpenAI-compatible endpoint, e.g. `https://api.deepseek.com/v1`. */
  readonly baseURL?: string;
  /** Extra headers on every request. */
  readonly headers?: Record<string, string>;
  /** Request timeout (the SDK default, 10 minutes, when unset). */
  readonly timeoutMs?: number;
  /**
   * Sent as `prompt_cache_retention` (`in_memory` / `24h` on the wire), for models before
   * GPT-5.6. Never together with `promptCacheOptions`.
   */
  readonly promptCacheRetention?: OpenAIChatPromptCacheRetention;
  /**
   * Sent as `prompt_cache_options` (GPT-5.6 and later): `ttl: "30m"` keeps the cached prefix at
   * least 30 minutes; `mode: "explicit"` turns caching off here (this package places no
   * breakpoints).
   */
  readonly promptCacheOptions?: OpenAIChatPromptCacheOptions;
  /**
   * Send this provider's recorded `reasoning_content` back with each assistant message, for
   * servers (DeepSeek-style) that expect it. Off by default: OpenAI does not know the field.
   */
  readonly replayReasoningContent?: boolean;
  /** Role of the instructions message; `system` (default) works with every compatible server. */
  readonly systemRole?: OpenAIChatSystemRole;
  /** Custom fetch (tests, proxies). */
  readonly fetch?: typeof fetch;
}

/**
 * A `ProviderAdapter` for OpenAI Chat Completions and compatible servers. `serialize` is pure;
 * `stream` sends exactly what `serialize` returns through the official SDK with its retries off
 * (the model loop owns retries) and yields normalised events, throwing `@cursor/run` errors.
 */
export function createOpenAIChatAdapter(
  options: OpenAIChatAdapterOptions = {},
): ProviderAdapter<OpenAIChatBody> {
  assertOneChatCacheSetting(options);
  const settings: OpenAIChatSerializeSettings = {
    systemRole: options.systemRole ?? "system",
    replayReasoningContent: options.replayReasoningContent ?? false,
    promptCacheRetention: options.promptCacheRetention,
    promptCacheOptions: options.promptCacheOptions,
  };
  // Created on the first call, so serialising (and constructing the adapter) needs no key.
  let client: OpenAI | undefined;
  const getClient = (): OpenAI => {
    if (client !== undefined) return client;
    try {
      client = new OpenAI({
        apiKey: options.apiKey,
        ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
        ...(options.headers === undefined ? {} : { defaultHeaders: options.headers }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        maxRetries: 0,
      });
    } catch (error) {
      // The SDK refuses to build a client without a key (argument or OPENAI_API_KEY).
      throw new AuthenticationError({
        message: error instanceof Error ? error.message : "no OpenAI API key",
        providerId: openAIChatProviderId,
        cause: error,
      });
    }
    return client;
  };

  const serialize = (request: ModelRequest) => serializeOpenAIChatRequest({ request, settings });

  async function* stream(
    request: ModelRequest,
    streamOptions: StreamOptions<OpenAIChatBody> = {},
  ): AsyncGenerator<ProviderEvent> {
    const { signal } = streamOptions;
    const { body } = streamOptions.serialized ?? serialize(request);
    try {
      signal?.throwIfAborted();
      const chunks = await getClient().chat.completions.create(body, {
        // The same bytes as the SDK's `JSON.stringify(body)`, in pieces: the SDK hands a stream
        // body to `fetch` as it is (json-body.ts in @cursor/run says why).
        body: JsonBodyStream.of(body),
        headers: { "content-type": "application/json" },
        ...(signal === undefined ? {} : { signal }),
      });
      yield* convertOpenAIChatStream({ chunks, providerId: openAIChatProviderId });
    } catch (error) {
      // An abort makes the SDK end the stream quietly, which then reads as a cut stream; the
      // classifier checks the signal first and reports a cancellation instead.
      throw toOpenAIChatProviderError({ error, providerId: openAIChatProviderId, signal });
    }
  }

  return { id: openAIChatProviderId, serialize, stream };
}
