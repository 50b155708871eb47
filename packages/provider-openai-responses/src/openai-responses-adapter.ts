import { AuthenticationError, JsonBodyStream, RunCancelledError } from "@cursor/run";
import type {
  ModelRequest,
  ProviderAdapter,
  ProviderEvent,
  SerializedRequest,
  StreamOptions,
} from "@cursor/run";
import OpenAI from "openai";
import { convertOpenAIResponsesStream } from "./convert-openai-responses-stream.js";
import type {
  OpenAIResponsesBody,
  OpenAIResponsesReasoningEffort,
  OpenAIResponsesReasoningSummary,
} from "./openai-responses-api.js";
import type {
  OpenAIResponsesPromptCacheOptions,
  OpenAIResponsesPromptCacheRetention,
} from "./openai-responses-cache-hints.js";
import { assertOneCacheSetting } from "./openai-responses-cache-hints.js";
import { toOpenAIResponsesProviderError } from "./openai-responses-errors.js";
import { openAIResponsesProviderId } from "./openai-responses-provider-id.js";
import { serializeOpenAIResponsesRequest } from "./serialize-openai-responses-request.js";

export interface OpenAIResponsesAdapterOptions {
  /** Defaults to the `OPENAI_API_KEY` environment variable (read when the first call is made). */
  readonly apiKey?: string;
  /** e.g. `https://api.openai.com/v1` (the default) or an OpenAI-compatible server. */
  readonly baseURL?: string;
  /** Sent with every request (organisation, project, proxy headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Per request, in milliseconds (SDK default: 10 minutes). */
  readonly timeoutMs?: number;
  /**
   * Always 0: the model loop owns retries (with the typed errors' `retryable` and
   * `retryAfterMs`), and a second retry layer in the SDK would multiply attempts.
   */
  readonly maxRetries?: 0;
  /** `prompt_cache_retention` (models before GPT-5.6). Never together with `promptCacheOptions`. */
  readonly promptCacheRetention?: OpenAIResponsesPromptCacheRetention;
  /**
   * `prompt_cache_options` (GPT-5.6 and later): `ttl: "30m"` keeps the cached prefix at least
   * 30 minutes. `mode: "explicit"` turns caching off here (this package places no breakpoints).
   */
  readonly promptCacheOptions?: OpenAIResponsesPromptCacheOptions;
  readonly reasoningEffort?: OpenAIResponsesReasoningEffort;
  /** Defaults to `auto` when `reasoningEffort` is set. */
  readonly reasoningSummary?: OpenAIResponsesReasoningSummary;
  /**
   * Ask for (and replay) encrypted reasoning; default true. Set false for models without
   * reasoning (gpt-4o, gpt-4.1, gpt-5-chat), which refuse the `include` with a 400.
   */
  readonly encryptedReasoning?: boolean;
  /** A custom fetch (proxies, tests). */
  readonly fetch?: typeof fetch;
}

/**
 * The OpenAI Responses `ProviderAdapter`: `serialize` builds the stateless streaming body,
 * `stream` sends it through the official SDK and yields normalised events, throwing
 * `@cursor/run` typed errors (and `RunCancelledError` when the signal aborts).
 */
export function createOpenAIResponsesAdapter(
  options: OpenAIResponsesAdapterOptions = {},
): ProviderAdapter<OpenAIResponsesBody> {
  assertOneCacheSetting(options);
  const settings = {
    ...(options.promptCacheRetention === undefined
      ? {}
      : { promptCacheRetention: options.promptCacheRetention }),
    ...(options.promptCacheOptions === undefined
      ? {}
      : { promptCacheOptions: options.promptCacheOptions }),
    ...(options.reasoningEffort === undefined ? {} : { reasoningEffort: options.reasoningEffort }),
    ...(options.reasoningSummary === undefined
      ? {}
      : { reasoningSummary: options.reasoningSummary }),
    ...(options.encryptedReasoning === undefined
      ? {}
      : { encryptedReasoning: options.encryptedReasoning }),
  };
  let client: OpenAI | undefined;

  // Created on the first call, so that serialising needs no key.
  function getClient(): OpenAI {
    if (client !== undefined) return client;
    try {
      client = new OpenAI({
        ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
        ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
        ...(options.headers === undefined ? {} : { defaultHeaders: { ...options.headers } }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        maxRetries: 0,
      });
    } catch (error) {
      throw new AuthenticationError({
        message: error instanceof Error ? error.message : "no OpenAI API key",
        providerId: openAIResponsesProviderId,
        cause: error,
      });
    }
    return client;
  }

  function serialize(request: ModelRequest): SerializedRequest<OpenAIResponsesBody> {
    return serializeOpenAIResponsesRequest({ request, settings });
  }

  async function* stream(
    request: ModelRequest,
    streamOptions: StreamOptions<OpenAIResponsesBody> = {},
  ): AsyncGenerator<ProviderEvent> {
    const { signal } = streamOptions;
    if (signal?.aborted) throw new RunCancelledError({ cause: signal.reason });
    const { body } = streamOptions.serialized ?? serialize(request);
    try {
      const events = await getClient().responses.create(body, {
        // The same bytes as the SDK's `JSON.stringify(body)`, in pieces: the SDK hands a stream
        // body to `fetch` as it is (json-body.ts in @cursor/run says why).
        body: JsonBodyStream.of(body),
        headers: { "content-type": "application/json" },
        ...(signal === undefined ? {} : { signal }),
      });
      yield* convertOpenAIResponsesStream(events);
    } catch (error) {
      // The SDK ends an aborted stream quietly (which would read as a cut stream): the signal,
      // not the symptom, says what happened (the classifier checks it first).
      throw toOpenAIResponsesProviderError(error, { now: Date.now(), signal });
    }
  }

  return { id: openAIResponsesProviderId, serialize, stream };
}
