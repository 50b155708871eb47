import type { JsonValue } from "@cursor/run";
import { z } from "zod";
import type { ResponsesReasoningItem } from "./responses-api.js";

/**
 * What this provider stores in an assistant message's replay bag under `openai-responses`:
 * the reasoning items of the response, each with its `encrypted_content`, in output order.
 * With `store: false` the server keeps nothing, so these items are the only way its reasoning
 * reaches the next turn.
 */
const replayStateSchema = z.object({
  reasoningItems: z.array(
    z.object({
      type: z.literal("reasoning"),
      id: z.string().min(1),
      summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })),
      encrypted_content: z.string().min(1),
    }),
  ),
});

/**
 * Rebuilds an item with a fixed key order. The replay bag may be persisted by layers that sort
 * keys (checkpoints); rebuilding keeps the replayed bytes equal on every turn regardless.
 */
function reasoningItem(item: {
  id: string;
  summary: readonly { text: string }[];
  encrypted_content: string;
}): ResponsesReasoningItem {
  return {
    type: "reasoning",
    id: item.id,
    summary: item.summary.map((part) => ({ type: "summary_text", text: part.text })),
    encrypted_content: item.encrypted_content,
  };
}

/** The replay state of one response (a JSON value for the canonical replay bag). */
export function createResponsesReplayState(items: readonly ResponsesReasoningItem[]): JsonValue {
  return {
    reasoningItems: items.map((item) => {
      const rebuilt = reasoningItem(item);
      return {
        type: rebuilt.type,
        id: rebuilt.id,
        summary: rebuilt.summary.map((part) => ({ type: part.type, text: part.text })),
        encrypted_content: rebuilt.encrypted_content,
      };
    }),
  };
}

export type ReadReplayStateResult =
  | { readonly ok: true; readonly items: ResponsesReasoningItem[] }
  | { readonly ok: false; readonly reason: string };

/** Reads the replay state written by `createResponsesReplayState`; anything else is rejected. */
export function readResponsesReplayState(state: JsonValue): ReadReplayStateResult {
  const parsed = replayStateSchema.safeParse(state);
  if (!parsed.success) {
    return {
      ok: false,
      reason: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
    };
  }
  return { ok: true, items: parsed.data.reasoningItems.map(reasoningItem) };
}
