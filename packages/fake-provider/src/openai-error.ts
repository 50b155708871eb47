import type { JsonAnswer, WireError } from "./wire-api.js";

/**
 * OpenAI's error envelope `{error: {message, type, param, code}}` with the real statuses and
 * codes; shared by Responses and Chat Completions (`historyParam` is `input` or `messages`).
 */
export function openaiErrorAnswer({
  error,
  requestId,
  historyParam,
}: {
  error: WireError;
  requestId: string;
  historyParam: string;
}): JsonAnswer {
  const headers: Record<string, string> = { "x-request-id": requestId };
  const envelope = (input: {
    status: number;
    message: string;
    type: string;
    param: string | null;
    code: string | null;
  }): JsonAnswer => ({
    status: input.status,
    headers,
    body: {
      error: { message: input.message, type: input.type, param: input.param, code: input.code },
    },
  });
  switch (error.kind) {
    case "invalid-request":
      return envelope({
        status: 400,
        message: error.message,
        type: "invalid_request_error",
        param: error.param ?? null,
        code: null,
      });
    case "context-overflow":
      return envelope({
        status: 400,
        message: `This model's maximum context length is ${error.contextWindow} tokens. However, your input resulted in ${error.inputTokens} tokens. Please reduce the length of the input.`,
        type: "invalid_request_error",
        param: historyParam,
        code: "context_length_exceeded",
      });
    case "status": {
      if (error.retryAfterSeconds !== undefined) {
        headers["retry-after"] = String(error.retryAfterSeconds);
        headers["retry-after-ms"] = String(Math.round(error.retryAfterSeconds * 1000));
      }
      const override = (answer: JsonAnswer): JsonAnswer => {
        if (error.code === undefined) return answer;
        const body = answer.body as { error: Record<string, unknown> };
        return {
          ...answer,
          body: { error: { ...body.error, type: error.code, code: error.code } },
        };
      };
      switch (error.status) {
        case 401:
          return override(
            envelope({
              status: 401,
              message: error.message ?? "Incorrect API key provided.",
              type: "invalid_request_error",
              param: null,
              code: "invalid_api_key",
            }),
          );
        case 402:
          return override(
            envelope({
              status: 402,
              message: error.message ?? "Insufficient balance.",
              type: "insufficient_quota",
              param: null,
              code: "insufficient_quota",
            }),
          );
        case 403:
          return override(
            envelope({
              status: 403,
              message: error.message ?? "Your project does not have access to this model.",
              type: "invalid_request_error",
              param: null,
              code: "model_not_allowed",
            }),
          );
        case 404:
          return override(
            envelope({
              status: 404,
              message: error.message ?? "The model does not exist or you do not have access to it.",
              type: "invalid_request_error",
              param: "model",
              code: "model_not_found",
            }),
          );
        case 408:
          return override(
            envelope({
              status: 408,
              message: error.message ?? "Request timed out.",
              type: "timeout",
              param: null,
              code: null,
            }),
          );
        case 413:
          return override(
            envelope({
              status: 413,
              message: error.message ?? "Request entity too large.",
              type: "invalid_request_error",
              param: null,
              code: "request_too_large",
            }),
          );
        case 429:
          return override(
            envelope({
              status: 429,
              message:
                error.message ??
                (error.code === "insufficient_quota"
                  ? "You exceeded your current quota, please check your plan and billing details."
                  : `Rate limit reached for requests. Please try again in ${error.retryAfterSeconds ?? 1}s.`),
              type: "requests",
              param: null,
              code: "rate_limit_exceeded",
            }),
          );
        case 500:
          return override(
            envelope({
              status: 500,
              message: error.message ?? "The server had an error while processing your request.",
              type: "server_error",
              param: null,
              code: null,
            }),
          );
        case 503:
        case 529:
          return override(
            envelope({
              status: error.status,
              message:
                error.message ?? "The engine is currently overloaded, please try again later.",
              type: "server_error",
              param: null,
              code: null,
            }),
          );
        default: {
          const exhaustive: never = error.status;
          throw new Error(`unknown status ${String(exhaustive)}`);
        }
      }
    }
    default: {
      const exhaustive: never = error;
      throw new Error(`unknown error ${JSON.stringify(exhaustive)}`);
    }
  }
}
