import type { FinishReason } from "@cursor/run";

/**
 * The finish reason of a finished response. A completed response that called functions ends
 * its turn for the tool results (`tool-calls`); an incomplete one says why it stopped early.
 */
export function mapOpenAIResponsesFinishReason({
  status,
  incompleteReason,
  hasToolCalls,
}: {
  status: "completed" | "incomplete";
  incompleteReason: string | null | undefined;
  hasToolCalls: boolean;
}): FinishReason {
  if (status === "completed") return hasToolCalls ? "tool-calls" : "stop";
  switch (incompleteReason) {
    case "max_output_tokens":
      return "length";
    case "content_filter":
      return "content-filter";
    default:
      return "other";
  }
}
