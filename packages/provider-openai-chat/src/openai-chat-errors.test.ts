import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ContextOverflowError,
  InvalidRequestError,
  NetworkError,
  ProviderServerError,
  RateLimitError,
  RefusalError,
  QuotaExceededError,
  RunCancelledError,
} from "@cursor/run";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from "openai";
import { toOpenAIChatProviderError } from "./openai-chat-errors.js";

function statusError(
  status: number,
  error: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return APIError.generate(status, { error }, undefined, new Headers(headers));
}

function classify(error: unknown, signal?: AbortSignal) {
  return toOpenAIChatProviderError({
    error,
    providerId: "openai-chat",
    signal,
    now: () => Date.parse("2026-01-01T00:00:00Z"),
  });
}

describe("toOpenAIChatProviderError", () => {
  it("recognises context overflow by code or by message", () => {
    const byCode = classify(
      statusError(400, {
        code: "context_length_exceeded",
        message: "This model's maximum context length is 128000 tokens.",
      }),
    );
    expect(ContextOverflowError.isInstance(byCode)).toBe(true);
    expect(byCode).toMatchObject({ providerId: "openai-chat", status: 400, retryable: false });
    const byMessage = classify(
      statusError(400, {
        message: "Input is too long for requested model: prompt is too long (200000 tokens)",
      }),
    );
    expect(ContextOverflowError.isInstance(byMessage)).toBe(true);
    const inStream = classify(
      new APIError(
        undefined,
        { code: "context_length_exceeded", message: "too long" },
        undefined,
        undefined,
      ),
    );
    expect(ContextOverflowError.isInstance(inStream)).toBe(true);
  });

  it("maps other 4xx to InvalidRequestError and 401/403 to AuthenticationError", () => {
    expect(
      InvalidRequestError.isInstance(classify(statusError(400, { message: "bad tool schema" }))),
    ).toBe(true);
    expect(
      InvalidRequestError.isInstance(classify(statusError(404, { message: "no such model" }))),
    ).toBe(true);
    expect(AuthenticationError.isInstance(classify(statusError(401, { message: "bad key" })))).toBe(
      true,
    );
    expect(
      AuthenticationError.isInstance(classify(statusError(403, { message: "forbidden" }))),
    ).toBe(true);
  });

  it("maps 429 to RateLimitError with the retry-after delay", () => {
    const withMs = classify(
      statusError(429, { message: "slow down" }, { "retry-after-ms": "1500", "retry-after": "9" }),
    );
    expect(RateLimitError.isInstance(withMs) && withMs.retryAfterMs).toBe(1500);
    const withSeconds = classify(
      statusError(429, { message: "slow down" }, { "retry-after": "2" }),
    );
    expect(RateLimitError.isInstance(withSeconds) && withSeconds.retryAfterMs).toBe(2000);
    const without = classify(statusError(429, { message: "slow down" }));
    expect(RateLimitError.isInstance(without) && without.retryAfterMs).toBe(undefined);
    expect(without).toMatchObject({ retryable: true, status: 429 });
  });

  it("maps 5xx, 409 and in-stream error events to ProviderServerError, 408 to NetworkError", () => {
    for (const status of [500, 502, 503, 409]) {
      expect(
        ProviderServerError.isInstance(classify(statusError(status, { message: "oops" }))),
      ).toBe(true);
    }
    // 408: @cursor/run's one table, the same for every provider.
    expect(NetworkError.isInstance(classify(statusError(408, { message: "timeout" })))).toBe(true);
    const inStream = classify(
      new APIError(undefined, { message: "server had an error" }, undefined, undefined),
    );
    expect(ProviderServerError.isInstance(inStream)).toBe(true);
  });

  it("maps connection failures, timeouts and cut sockets to NetworkError", () => {
    expect(
      NetworkError.isInstance(classify(new APIConnectionError({ message: "Connection error." }))),
    ).toBe(true);
    expect(NetworkError.isInstance(classify(new APIConnectionTimeoutError()))).toBe(true);
    expect(NetworkError.isInstance(classify(new TypeError("terminated")))).toBe(true);
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(NetworkError.isInstance(classify(reset))).toBe(true);
    const closed = new TypeError("network error", { cause: { code: "UND_ERR_SOCKET" } });
    expect(NetworkError.isInstance(classify(closed))).toBe(true);
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')");
    expect(classify(bug)).toBe(bug);
  });

  it("reports an abort as RunCancelledError, whatever the SDK threw", () => {
    const controller = new AbortController();
    controller.abort(new Error("user pressed stop"));
    const cancelled = classify(
      new NetworkError({ providerId: "openai-chat", message: "cut" }),
      controller.signal,
    );
    expect(RunCancelledError.isInstance(cancelled)).toBe(true);
    expect(RunCancelledError.isInstance(classify(new APIUserAbortError()))).toBe(true);
  });

  it("maps quota exhaustion (HTTP 429 or in the stream) to a permanent QuotaExceededError", () => {
    const http = classify(
      statusError(429, {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        code: "insufficient_quota",
      }),
    );
    expect(QuotaExceededError.isInstance(http)).toBe(true);
    expect(http).toMatchObject({ status: 429, retryable: false });
    const inStream = classify(
      new APIError(
        undefined,
        { message: "quota", type: "insufficient_quota", code: "insufficient_quota" },
        undefined,
        undefined,
      ),
    );
    expect(QuotaExceededError.isInstance(inStream)).toBe(true);
    // DeepSeek's 402 Insufficient Balance.
    expect(
      QuotaExceededError.isInstance(
        classify(statusError(402, { message: "Insufficient Balance" })),
      ),
    ).toBe(true);
  });

  it("passes typed errors through and leaves unknown errors alone", () => {
    const refusal = new RefusalError({ providerId: "openai-chat", message: "no" });
    expect(classify(refusal)).toBe(refusal);
    const bug = new RangeError("a bug");
    expect(classify(bug)).toBe(bug);
    // The SDK's own non-API errors (e.g. a missing key) are not classified here: the adapter
    // turns a client it cannot create into an AuthenticationError itself.
    const sdk = new OpenAIError("Missing credentials. Please pass an `apiKey`");
    expect(classify(sdk)).toBe(sdk);
  });
});
