import type { FinishReason } from "@cursor/run";

/**
 * `stop_reason` → finish reason. `refusal` maps to `refusal` here and the stream turns it into
 * a `RefusalError` (a safety refusal is final for this request and must not be retried or
 * mistaken for a normal answer). `model_context_window_exceeded` means generation ran into the
 * context window: like `max_tokens`, the answer is cut, so it is `length`. Unknown or absent
 * reasons (e.g. `pause_turn`, which only server tools produce) are `other`.
 */
export function mapAnthropicFinishReason(
  stopReason: string | null | undefined,
): FinishReason | "refusal" {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}
