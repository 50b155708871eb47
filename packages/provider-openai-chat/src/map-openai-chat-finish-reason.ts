import type { FinishReason } from "@cursor/run";

/**
 * Chat `finish_reason` → canonical finish reason. `function_call` is the legacy name of
 * `tool_calls`; anything a compatible server invents becomes `other`.
 */
export function mapOpenAIChatFinishReason(finishReason: string): FinishReason {
  switch (finishReason) {
    case "stop":
      return "stop";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "length":
      return "length";
    case "content_filter":
      return "content-filter";
    default:
      return "other";
  }
}
