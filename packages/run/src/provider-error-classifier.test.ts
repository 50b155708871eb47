import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ContextOverflowError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  QuotaExceededError,
  RateLimitError,
  RunCancelledError,
} from "./errors.js";
import type { ProviderError } from "./errors.js";
import { describeLoopError } from "./loop-error.js";
import { classifyProviderFailure, toProviderError } from "./provider-error-classifier.js";
import type { ProviderErrorRules, UnwrappedProviderError } from "./provider-error-classifier.js";
import { retryDelayMs, defaultRetryPolicy } from "./retry-policy.js";

/** A stand-in SDK error class, unwrapped the way a provider package unwraps its SDK's. */
class FakeSdkError extends Error {
  constructor(
    readonly status: number | undefined,
    readonly body: { code?: string; type?: string; message: string },
    readonly headers?: Headers,
  ) {
    super(body.message);
  }
}
class FakeConnectionError extends Error {}

const rules: ProviderErrorRules = {
  providerId: "fake",
  overflowCodes: ["context_length_exceeded"],
  overflowPattern: /prompt is too long/i,
  unwrap(error): UnwrappedProviderError | undefined {
    if (error instanceof FakeConnectionError) return { kind: "transport", message: error.message };
    if (error instanceof FakeSdkError) {
      return {
        kind: "response",
        details: {
          status: error.status,
          code: error.body.code,
          type: error.body.type,
          message: error.body.message,
          headers: error.headers,
        },
      };
    }
    return undefined;
  },
};

const classify = (details: Parameters<typeof classifyProviderFailure>[0]["details"]) =>
  classifyProviderFailure({ rules, details, now: () => 0 });

describe("classifyProviderFailure: one table for every provider", () => {
  it.each([
    // status, code, message, expected class, retryable
    [400, undefined, "prompt is too long: 210000 tokens > 200000 maximum", ContextOverflowError],
    [400, "context_length_exceeded", "too long", ContextOverflowError],
    [413, undefined, "request too large", ContextOverflowError],
    [undefined, "context_length_exceeded", "in a stream", ContextOverflowError],
    [400, undefined, "messages.1: bad block", InvalidRequestError],
    [404, "not_found_error", "model: claude-x", InvalidRequestError],
    [422, undefined, "unprocessable", InvalidRequestError],
    [401, "invalid_api_key", "Incorrect API key", AuthenticationError],
    [403, "permission_error", "not allowed", AuthenticationError],
    [402, "billing_error", "credit balance too low", QuotaExceededError],
    [429, "insufficient_quota", "You exceeded your current quota", QuotaExceededError],
    [400, "billing_error", "Your credit balance is too low", QuotaExceededError],
    [429, "rate_limit_exceeded", "slow down", RateLimitError],
    [429, undefined, "slow down", RateLimitError],
    [408, undefined, "request timeout", NetworkError],
    [409, "conflict_error", "conflict", ProviderServerError],
    [500, "api_error", "internal", ProviderServerError],
    [503, undefined, "unavailable", ProviderServerError],
    [529, "overloaded_error", "overloaded", ProviderServerError],
    // Inside an open stream: no status, only the body's code.
    [undefined, "insufficient_quota", "quota", QuotaExceededError],
    [undefined, "billing_error", "billing", QuotaExceededError],
    [undefined, "authentication_error", "bad key", AuthenticationError],
    [undefined, "rate_limit_exceeded", "slow", RateLimitError],
    [undefined, "rate_limit_error", "slow", RateLimitError],
    [undefined, "invalid_request_error", "bad", InvalidRequestError],
    [undefined, "invalid_prompt", "bad", InvalidRequestError],
    [undefined, "overloaded_error", "busy", ProviderServerError],
    [undefined, "server_error", "oops", ProviderServerError],
    [undefined, "a_code_from_2030", "unknown", ProviderServerError],
    [undefined, undefined, "no code at all", ProviderServerError],
  ] as const)("status %s, code %s (%s)", (status, code, message, expected) => {
    const error = classify({ status, code, message });
    expect(error).toBeInstanceOf(expected);
    expect(error.providerId).toBe("fake");
    expect(error.status).toBe(status);
    expect(error.message).toBe(message);
  });

  it("checks the error type as well as the code (OpenAI sends both)", () => {
    expect(
      classify({ status: 429, code: undefined, type: "insufficient_quota", message: "quota" }),
    ).toBeInstanceOf(QuotaExceededError);
  });

  it("a rate limit carries the provider's retry-after", () => {
    const error = classify({
      status: 429,
      message: "slow",
      headers: new Headers({ "retry-after-ms": "1500" }),
    });
    expect(RateLimitError.isInstance(error) && error.retryAfterMs).toBe(1500);
  });

  it("takes an overflow wording as an overflow only on 400, 413 or in a stream", () => {
    // OpenAI's TPM limit is a 429 that talks about tokens: a rate limit, not an overflow.
    expect(classify({ status: 429, message: "prompt is too long for your TPM" })).toBeInstanceOf(
      RateLimitError,
    );
  });

  it("quota, billing and auth failures are permanent; the others transient as documented", () => {
    const permanent: ProviderError[] = [
      classify({ status: 429, code: "insufficient_quota", message: "q" }),
      classify({ code: "insufficient_quota", message: "q" }),
      classify({ status: 402, message: "q" }),
      classify({ status: 401, message: "a" }),
      classify({ status: 403, message: "a" }),
      classify({ status: 400, message: "bad" }),
    ];
    for (const error of permanent) {
      expect(error.retryable).toBe(false);
      expect(retryDelayMs({ error, retry: 1, policy: defaultRetryPolicy })).toBeUndefined();
    }
    expect(describeLoopError(permanent[0])).toEqual({
      code: "provider_quota_exceeded",
      message: "q",
    });
    expect(describeLoopError(permanent[3]).code).toBe("provider_authentication");
    for (const status of [408, 409, 429, 500, 529]) {
      expect(classify({ status, message: "t" }).retryable).toBe(true);
    }
  });
});

describe("toProviderError: unwrap, then classify", () => {
  it("classifies what the provider unwraps from its SDK errors", () => {
    const error = toProviderError({
      error: new FakeSdkError(429, { code: "insufficient_quota", message: "no credit" }),
      rules,
    });
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect((error as QuotaExceededError).cause).toBeInstanceOf(FakeSdkError);
  });

  it("SDK connection errors and raw transport failures are network errors", () => {
    expect(
      toProviderError({ error: new FakeConnectionError("Connection error."), rules }),
    ).toBeInstanceOf(NetworkError);
    expect(toProviderError({ error: new TypeError("terminated"), rules })).toBeInstanceOf(
      NetworkError,
    );
    expect(toProviderError({ error: new TypeError("fetch failed"), rules })).toBeInstanceOf(
      NetworkError,
    );
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(toProviderError({ error: reset, rules })).toBeInstanceOf(NetworkError);
    const wrapped = new Error("other", { cause: { code: "UND_ERR_SOCKET" } });
    expect(toProviderError({ error: wrapped, rules })).toBeInstanceOf(NetworkError);
  });

  it("malformed stream data is the server's fault", () => {
    expect(toProviderError({ error: new SyntaxError("Unexpected token"), rules })).toBeInstanceOf(
      ProviderServerError,
    );
  });

  it("an aborted signal or an AbortError is a cancellation", () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      toProviderError({ error: new TypeError("terminated"), rules, signal: controller.signal }),
    ).toBeInstanceOf(RunCancelledError);
    const abort = Object.assign(new Error("aborted"), { name: "AbortError" });
    expect(toProviderError({ error: abort, rules })).toBeInstanceOf(RunCancelledError);
  });

  it("typed errors pass through unchanged", () => {
    const typed = new RateLimitError({ message: "r", providerId: "fake" });
    expect(toProviderError({ error: typed, rules })).toBe(typed);
  });

  it("an unrecognised error is returned unchanged: a bug is not retried as a provider failure", () => {
    const bug = new TypeError("cannot read properties of undefined");
    expect(toProviderError({ error: bug, rules })).toBe(bug);
    expect(describeLoopError(bug).code).toBe("internal_error");
  });
});
