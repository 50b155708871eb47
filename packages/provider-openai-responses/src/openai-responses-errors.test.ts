import {
  AuthenticationError,
  ContextOverflowError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  QuotaExceededError,
  RunCancelledError,
} from "@cursor/run";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import {
  classifyOpenAIResponsesStreamError,
  toOpenAIResponsesProviderError,
} from "./openai-responses-errors.js";

const now = Date.parse("2026-01-01T00:00:00Z");

function httpError(status: number, body: object, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: body }, undefined, new Headers(headers));
}

describe("toOpenAIResponsesProviderError", () => {
  it("classifies HTTP errors by status and body", () => {
    const overflow = toOpenAIResponsesProviderError(
      httpError(400, {
        code: "context_length_exceeded",
        message: "Your input exceeds the context window of this model.",
        type: "invalid_request_error",
      }),
      { now },
    );
    expect(ContextOverflowError.isInstance(overflow)).toBe(true);
    expect(overflow).toMatchObject({ providerId: "openai-responses", status: 400 });

    const invalid = toOpenAIResponsesProviderError(
      httpError(400, { code: "invalid_value", message: "bad" }),
      {
        now,
      },
    );
    expect(InvalidRequestError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({ message: "bad" });

    expect(
      AuthenticationError.isInstance(toOpenAIResponsesProviderError(httpError(401, {}), { now })),
    ).toBe(true);
    expect(
      AuthenticationError.isInstance(toOpenAIResponsesProviderError(httpError(403, {}), { now })),
    ).toBe(true);
    expect(
      InvalidRequestError.isInstance(toOpenAIResponsesProviderError(httpError(404, {}), { now })),
    ).toBe(true);
    expect(
      ProviderServerError.isInstance(toOpenAIResponsesProviderError(httpError(500, {}), { now })),
    ).toBe(true);
    expect(
      ProviderServerError.isInstance(toOpenAIResponsesProviderError(httpError(503, {}), { now })),
    ).toBe(true);
    expect(
      NetworkError.isInstance(toOpenAIResponsesProviderError(httpError(408, {}), { now })),
    ).toBe(true);
  });

  it("carries retry-after on rate limits", () => {
    const limited = toOpenAIResponsesProviderError(
      httpError(429, { code: "rate_limit_exceeded", message: "slow down" }, { "retry-after": "3" }),
      { now },
    );
    expect(RateLimitError.isInstance(limited)).toBe(true);
    expect(limited).toMatchObject({ retryAfterMs: 3000, status: 429, retryable: true });
    const bare = toOpenAIResponsesProviderError(httpError(429, {}), { now });
    expect(bare).toMatchObject({ retryAfterMs: undefined });
  });

  it("maps connection failures, aborts and broken bodies", () => {
    expect(
      NetworkError.isInstance(
        toOpenAIResponsesProviderError(new APIConnectionError({ message: "refused" }), { now }),
      ),
    ).toBe(true);
    expect(
      NetworkError.isInstance(
        toOpenAIResponsesProviderError(new APIConnectionTimeoutError(), { now }),
      ),
    ).toBe(true);
    expect(
      RunCancelledError.isInstance(
        toOpenAIResponsesProviderError(new APIUserAbortError(), { now }),
      ),
    ).toBe(true);
    const cut = toOpenAIResponsesProviderError(new TypeError("terminated"), { now });
    expect(NetworkError.isInstance(cut)).toBe(true);
    expect(cut).toMatchObject({ message: "the connection broke: terminated" });
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(NetworkError.isInstance(toOpenAIResponsesProviderError(reset, { now }))).toBe(true);
    const closed = new TypeError("network error", { cause: { code: "UND_ERR_SOCKET" } });
    expect(NetworkError.isInstance(toOpenAIResponsesProviderError(closed, { now }))).toBe(true);
    expect(
      ProviderServerError.isInstance(
        toOpenAIResponsesProviderError(new SyntaxError("Unexpected token"), { now }),
      ),
    ).toBe(true);
  });

  it("classifies errors the SDK raised from inside the stream (no status)", () => {
    const inStream = new APIError(
      undefined,
      { code: "context_length_exceeded", message: "too long" },
      undefined,
      undefined,
    );
    expect(ContextOverflowError.isInstance(toOpenAIResponsesProviderError(inStream, { now }))).toBe(
      true,
    );
  });

  it("classifies quota exhaustion as permanent: a 429 insufficient_quota, and in a stream", () => {
    const http = toOpenAIResponsesProviderError(
      httpError(429, {
        code: "insufficient_quota",
        type: "insufficient_quota",
        message: "You exceeded your current quota, please check your plan and billing details.",
      }),
      { now },
    );
    expect(QuotaExceededError.isInstance(http)).toBe(true);
    expect(http).toMatchObject({ status: 429, retryable: false });
    const inStream = classifyOpenAIResponsesStreamError({
      code: "insufficient_quota",
      message: "q",
    });
    expect(QuotaExceededError.isInstance(inStream)).toBe(true);
  });

  it("returns bugs unchanged instead of passing them off as transient", () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(toOpenAIResponsesProviderError(bug, { now })).toBe(bug);
  });

  it("passes typed errors through unchanged", () => {
    const typed = new RateLimitError({ message: "x", providerId: "openai-responses" });
    expect(toOpenAIResponsesProviderError(typed, { now })).toBe(typed);
  });
});

describe("classifyOpenAIResponsesStreamError", () => {
  it.each([
    ["context_length_exceeded", "x", ContextOverflowError],
    ["rate_limit_exceeded", "x", RateLimitError],
    ["invalid_prompt", "x", InvalidRequestError],
    ["server_error", "x", ProviderServerError],
    [null, "Input tokens exceed the configured limit of 272000 tokens.", ContextOverflowError],
    [null, "The server had an error while processing your request.", ProviderServerError],
    [null, "prompt is too long: 210000 tokens > 200000 maximum", ContextOverflowError],
  ] as const)("%s / %s", (code, message, type) => {
    const error = classifyOpenAIResponsesStreamError({ code, message });
    expect(type.isInstance(error)).toBe(true);
    expect(error.message).toBe(message);
    expect(error.status).toBeUndefined();
  });
});
