import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
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
  describeLoopError,
} from "@cursor/run";
import { toAnthropicProviderError } from "./anthropic-errors.js";

const apiError = (
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
) =>
  APIError.generate(
    status,
    { type: "error", error: { type, message } },
    undefined,
    new Headers(headers),
  );

describe("toAnthropicProviderError", () => {
  it("classifies a prompt-too-long 400 as a context overflow", () => {
    const error = toAnthropicProviderError(
      apiError(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
    );
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      providerId: "anthropic",
      status: 400,
      retryable: false,
      message: "prompt is too long: 210000 tokens > 200000 maximum",
    });
  });

  it("classifies 413 as a context overflow and other 400s as invalid requests", () => {
    expect(
      ContextOverflowError.isInstance(
        toAnthropicProviderError(
          apiError(413, "request_too_large", "Request exceeds the maximum size"),
        ),
      ),
    ).toBe(true);
    const invalid = toAnthropicProviderError(
      apiError(
        400,
        "invalid_request_error",
        "messages.1.content.0: Invalid `signature` in `thinking` block",
      ),
    );
    expect(InvalidRequestError.isInstance(invalid)).toBe(true);
    expect(
      InvalidRequestError.isInstance(
        toAnthropicProviderError(apiError(404, "not_found_error", "model")),
      ),
    ).toBe(true);
  });

  it("classifies 401 and 403 as authentication errors", () => {
    for (const status of [401, 403]) {
      const error = toAnthropicProviderError(
        apiError(status, "authentication_error", "invalid x-api-key"),
      );
      expect(AuthenticationError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status, retryable: false });
    }
  });

  it("classifies 429 as a rate limit with retry-after", () => {
    const error = toAnthropicProviderError(
      apiError(429, "rate_limit_error", "slow down", { "retry-after": "7" }),
    );
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 7000 });
    const without = toAnthropicProviderError(apiError(429, "rate_limit_error", "slow down"));
    expect((without as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it("classifies 5xx and 529 overloaded as server errors, 408 as a network error", () => {
    for (const status of [500, 502, 503, 529]) {
      const error = toAnthropicProviderError(apiError(status, "overloaded_error", "Overloaded"));
      expect(ProviderServerError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status, retryable: true });
    }
    // 408: @cursor/run's one table, the same for every provider.
    const timeout = toAnthropicProviderError(apiError(408, "timeout_error", "Request timeout"));
    expect(NetworkError.isInstance(timeout)).toBe(true);
    expect(timeout).toMatchObject({ status: 408, retryable: true });
  });

  it("classifies billing errors as a permanent quota error, over HTTP and inside a stream", () => {
    const http = toAnthropicProviderError(
      apiError(402, "billing_error", "Your credit balance is too low to access the Anthropic API."),
    );
    expect(QuotaExceededError.isInstance(http)).toBe(true);
    expect(http).toMatchObject({ status: 402, retryable: false });
    expect(describeLoopError(http).code).toBe("provider_quota_exceeded");
    const inStream = toAnthropicProviderError(
      new APIError(
        undefined,
        { type: "error", error: { type: "billing_error", message: "credit balance too low" } },
        undefined,
        new Headers(),
      ),
    );
    expect(QuotaExceededError.isInstance(inStream)).toBe(true);
    expect((inStream as QuotaExceededError).retryable).toBe(false);
  });

  it("returns an error it does not recognise unchanged (a bug is not a provider failure)", () => {
    const bug = new RangeError("Invalid array length");
    expect(toAnthropicProviderError(bug)).toBe(bug);
  });

  it("classifies error events inside an open stream by their type", () => {
    const streamError = (type: string, message: string) =>
      new APIError(
        undefined,
        { type: "error", error: { type, message } },
        undefined,
        new Headers(),
      );
    expect(
      ProviderServerError.isInstance(
        toAnthropicProviderError(streamError("overloaded_error", "Overloaded")),
      ),
    ).toBe(true);
    expect(
      RateLimitError.isInstance(toAnthropicProviderError(streamError("rate_limit_error", "x"))),
    ).toBe(true);
    expect(
      ContextOverflowError.isInstance(
        toAnthropicProviderError(
          streamError("invalid_request_error", "prompt is too long: 5 tokens > 4 maximum"),
        ),
      ),
    ).toBe(true);
    expect(
      InvalidRequestError.isInstance(
        toAnthropicProviderError(streamError("invalid_request_error", "bad")),
      ),
    ).toBe(true);
    expect(
      AuthenticationError.isInstance(
        toAnthropicProviderError(streamError("permission_error", "no")),
      ),
    ).toBe(true);
  });

  it("classifies connection failures, timeouts and cut bodies as network errors", () => {
    for (const error of [
      new APIConnectionError({ message: "Connection error." }),
      new APIConnectionTimeoutError(),
      new TypeError("terminated"),
    ]) {
      const mapped = toAnthropicProviderError(error);
      expect(NetworkError.isInstance(mapped)).toBe(true);
      expect((mapped as NetworkError).retryable).toBe(true);
      expect((mapped as NetworkError).cause).toBe(error);
    }
  });

  it("turns aborts into RunCancelledError and passes typed errors through", () => {
    expect(RunCancelledError.isInstance(toAnthropicProviderError(new APIUserAbortError()))).toBe(
      true,
    );
    const abort = new DOMException("aborted", "AbortError");
    expect(RunCancelledError.isInstance(toAnthropicProviderError(abort))).toBe(true);
    const refusal = new RefusalError({ message: "no", providerId: "anthropic" });
    expect(toAnthropicProviderError(refusal)).toBe(refusal);
  });
});
