import { classifyProviderFailure, toProviderError } from "@cursor/run";
import type { ProviderError, ProviderErrorRules, UnwrappedProviderError } from "@cursor/run";
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { openAIResponsesErrorBodySchema } from "./openai-responses-api.js";
import { openAIResponsesProviderId as providerId } from "./openai-responses-provider-id.js";

/** Reads the official SDK's error classes (checked from the most specific). */
function unwrapOpenAIError(error: unknown): UnwrappedProviderError | undefined {
  if (error instanceof APIUserAbortError) return { kind: "cancelled" };
  if (error instanceof APIConnectionError) return { kind: "transport", message: error.message };
  if (!(error instanceof APIError)) return undefined;
  // In a stream the SDK puts the error object itself in `error`; for HTTP errors the body is
  // `{error: {...}}` and the SDK has already lifted `code` and `type`.
  const body = openAIResponsesErrorBodySchema.safeParse(error.error);
  return {
    kind: "response",
    details: {
      status: error.status,
      code: error.code ?? (body.success ? body.data.code : undefined),
      type: error.type ?? (body.success ? body.data.type : undefined),
      message: (body.success ? body.data.message : undefined) ?? error.message,
      headers: error.headers,
    },
  };
}

/**
 * What this provider adds to `@cursor/run`'s one classification of provider failures: OpenAI
 * says `context_length_exceeded`; compatible servers only say it in words.
 */
export const openAIResponsesErrorRules: ProviderErrorRules = {
  providerId,
  overflowCodes: ["context_length_exceeded"],
  overflowPattern:
    /context[_ ]length|context window|maximum context|prompt is too long|too many (?:input )?tokens|input tokens exceed|exceeds? the (?:model'?s? )?(?:maximum )?(?:context|input)/i,
  unwrap: unwrapOpenAIError,
};

/**
 * An error reported inside an open stream (an `error` event or a `response.failed` response):
 * no status, only the error body's code and message.
 */
export function classifyOpenAIResponsesStreamError({
  code,
  message,
  cause,
}: {
  code: string | null | undefined;
  message: string | null | undefined;
  cause?: unknown;
}): ProviderError {
  return classifyProviderFailure({
    rules: openAIResponsesErrorRules,
    details: { code, message: message ?? code ?? "the response failed" },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Any failure of a stream call as a typed `@cursor/run` error, classified by `@cursor/run`'s
 * `toProviderError` with this provider's overflow wording and SDK error classes. An aborted
 * `signal` makes it a `RunCancelledError`; anything unrecognised (a bug, not a provider failure)
 * is returned unchanged so that it is not retried as if it were transient.
 */
export function toOpenAIResponsesProviderError(
  error: unknown,
  { now, signal }: { now: number; signal?: AbortSignal | undefined },
): unknown {
  return toProviderError({ error, rules: openAIResponsesErrorRules, signal, now: () => now });
}
