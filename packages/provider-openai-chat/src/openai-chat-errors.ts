import { toProviderError } from "@cursor/run";
import type { ProviderErrorRules, UnwrappedProviderError } from "@cursor/run";
import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { z } from "zod";

const errorBodySchema = z.looseObject({
  code: z.string().nullish(),
  type: z.string().nullish(),
  message: z.string().nullish(),
});

/** Reads the official SDK's error classes (checked from the most specific). */
function unwrapOpenAIError(error: unknown): UnwrappedProviderError | undefined {
  if (error instanceof APIUserAbortError) return { kind: "cancelled" };
  if (error instanceof APIConnectionError) return { kind: "transport", message: error.message };
  if (!(error instanceof APIError)) return undefined;
  // An error object in place of a chunk becomes an APIError without status whose `error` is that
  // object; for HTTP errors the SDK has already lifted `code` and `type` out of the body.
  const body = errorBodySchema.safeParse(error.error);
  return {
    kind: "response",
    details: {
      status: error.status,
      code: error.code ?? (body.success ? body.data.code : undefined),
      type: error.type ?? (body.success ? body.data.type : undefined),
      message: error.message,
      headers: error.headers,
    },
  };
}

/** This package's rules for `@cursor/run`'s one classification of provider failures. */
export function openAIChatErrorRules(providerId: string): ProviderErrorRules {
  return {
    providerId,
    // OpenAI answers `context_length_exceeded`; compatible servers (vLLM, DeepSeek, proxies)
    // only say it in the message, in several wordings.
    overflowCodes: ["context_length_exceeded", "string_above_max_length_tokens"],
    overflowPattern:
      /context[_ ]length[_ ]exceeded|maximum context length|context window|prompt is too long|too many (input )?tokens|input (is )?too long|reduce the length of the messages/i,
    unwrap: unwrapOpenAIError,
  };
}

export interface ToOpenAIChatProviderErrorInput {
  readonly error: unknown;
  readonly providerId: string;
  readonly signal?: AbortSignal | undefined;
  /** Clock for HTTP-date `retry-after` values. */
  readonly now?: () => number;
}

/**
 * Maps whatever the SDK (or the transport under it) threw to the typed errors of `@cursor/run`,
 * through `@cursor/run`'s `toProviderError` with this provider's overflow wording and SDK error
 * classes. An aborted signal wins; typed errors pass through; anything unrecognised (a bug, not
 * a provider failure) is returned unchanged so it is not retried as if it were transient.
 */
export function toOpenAIChatProviderError({
  error,
  providerId,
  signal,
  now,
}: ToOpenAIChatProviderErrorInput): unknown {
  return toProviderError({
    error,
    rules: openAIChatErrorRules(providerId),
    signal,
    ...(now === undefined ? {} : { now }),
  });
}
