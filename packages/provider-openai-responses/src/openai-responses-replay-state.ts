import type { JsonValue } from "@cursor/run";
import { z } from "zod";
import type {
  OpenAIResponsesMessagePhase,
  OpenAIResponsesReasoningItem,
} from "./openai-responses-api.js";
import { openAIResponsesMessagePhaseSchema } from "./openai-responses-api.js";

/** One output item of a response, as the replay state keeps it (in output order). */
export type OpenAIResponsesReplayItem =
  /** Replayed verbatim: with `store: false` the server keeps nothing of it. */
  | OpenAIResponsesReasoningItem
  /** One assistant message item: its text and, when the model labelled it, its phase. */
  | {
      readonly type: "message";
      readonly text: string;
      readonly phase?: OpenAIResponsesMessagePhase;
    }
  /** Where a function call sat among the items; its name and arguments are the tool call's. */
  | { readonly type: "function_call"; readonly call_id: string };

const reasoningItemSchema = z.object({
  type: z.literal("reasoning"),
  id: z.string().min(1),
  summary: z.array(z.object({ type: z.literal("summary_text"), text: z.string() })),
  encrypted_content: z.string().min(1),
});

/**
 * What this provider stores under `openai-responses` in an assistant message's replay bag: the
 * response's output items in order — reasoning items with their `encrypted_content`, each
 * message item's text and `phase`, and the position of each function call.
 */
const itemsStateSchema = z.object({
  items: z.array(
    z.discriminatedUnion("type", [
      reasoningItemSchema,
      z.object({
        type: z.literal("message"),
        text: z.string(),
        phase: openAIResponsesMessagePhaseSchema.optional(),
      }),
      z.object({ type: z.literal("function_call"), call_id: z.string().min(1) }),
    ]),
  ),
});

/** The state written before message items and phases were kept: reasoning items only. */
const legacyStateSchema = z.object({ reasoningItems: z.array(reasoningItemSchema) });

/**
 * Rebuilds an item with a fixed key order. The replay bag may be persisted by layers that sort
 * keys (checkpoints); rebuilding keeps the replayed bytes equal on every turn regardless.
 */
function rebuild(item: OpenAIResponsesReplayItem): OpenAIResponsesReplayItem {
  switch (item.type) {
    case "reasoning":
      return {
        type: "reasoning",
        id: item.id,
        summary: item.summary.map((part) => ({ type: "summary_text", text: part.text })),
        encrypted_content: item.encrypted_content,
      };
    case "message":
      return item.phase === undefined
        ? { type: "message", text: item.text }
        : { type: "message", text: item.text, phase: item.phase };
    case "function_call":
      return { type: "function_call", call_id: item.call_id };
    default: {
      const exhaustive: never = item;
      throw new TypeError(`unknown replay item ${JSON.stringify(exhaustive)}`);
    }
  }
}

const toJson = (item: OpenAIResponsesReplayItem): JsonValue => {
  const rebuilt = rebuild(item);
  return rebuilt.type === "reasoning"
    ? {
        type: rebuilt.type,
        id: rebuilt.id,
        summary: rebuilt.summary.map((part) => ({ type: part.type, text: part.text })),
        encrypted_content: rebuilt.encrypted_content,
      }
    : { ...rebuilt };
};

/** The replay state of one response (a JSON value for the canonical replay bag). */
export function createOpenAIResponsesReplayState(
  items: readonly OpenAIResponsesReplayItem[],
): JsonValue {
  return { items: items.map(toJson) };
}

export type ReadOpenAIResponsesReplayStateResult =
  | {
      readonly ok: true;
      readonly items: OpenAIResponsesReplayItem[];
      /**
       * True for state written before output items were kept (reasoning items only): the
       * message is then rendered as its reasoning items, its text, then its calls.
       */
      readonly legacy: boolean;
    }
  | { readonly ok: false; readonly reason: string };

const describe = (error: z.ZodError): string =>
  error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");

/** Reads the replay state written by `createOpenAIResponsesReplayState` (or the earlier format). */
export function readOpenAIResponsesReplayState(
  state: JsonValue,
): ReadOpenAIResponsesReplayStateResult {
  const current = itemsStateSchema.safeParse(state);
  if (current.success) {
    return { ok: true, items: current.data.items.map(rebuild), legacy: false };
  }
  const legacy = legacyStateSchema.safeParse(state);
  if (legacy.success) {
    return { ok: true, items: legacy.data.reasoningItems.map(rebuild), legacy: true };
  }
  return { ok: false, reason: describe(current.error) };
}
