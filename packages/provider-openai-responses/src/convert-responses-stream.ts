import { NetworkError, ProviderServerError, RefusalError } from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import { convertResponsesUsage } from "./convert-responses-usage.js";
import { mapResponsesFinishReason } from "./map-responses-finish-reason.js";
import { knownResponsesStreamEventTypes, responsesStreamEventSchema } from "./responses-api.js";
import type {
  ResponsesOutputItem,
  ResponsesReasoningItem,
  ResponsesStreamEvent,
} from "./responses-api.js";
import { classifyResponsesStreamError } from "./responses-errors.js";
import { responsesProviderId as providerId } from "./responses-provider-id.js";
import { createResponsesReplayState } from "./responses-replay-state.js";

function eventType(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null || !("type" in event)) return undefined;
  return typeof event.type === "string" ? event.type : undefined;
}

function parseEvent(event: unknown): ResponsesStreamEvent | undefined {
  const type = eventType(event);
  if (type === undefined || !knownResponsesStreamEventTypes.has(type)) return undefined;
  const parsed = responsesStreamEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new ProviderServerError({
      message: `malformed ${type} event: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      providerId,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function refusalOf(item: ResponsesOutputItem): string | undefined {
  if (item.type !== "message" || !("content" in item)) return undefined;
  for (const part of item.content) {
    if (part.type === "refusal" && "refusal" in part) return part.refusal;
  }
  return undefined;
}

/** The state one response accumulates while it streams. */
interface StreamState {
  toolCalls: number;
  reasoningItems: ResponsesReasoningItem[];
  reasoningStarted: boolean;
}

/** Events for one finished output item; throws on a refusal. */
function* onItemDone(item: ResponsesOutputItem, state: StreamState): Generator<ProviderEvent> {
  if (item.type === "function_call" && "call_id" in item) {
    yield {
      type: "tool-call",
      index: state.toolCalls,
      callId: item.call_id,
      name: item.name,
      arguments: item.arguments,
    };
    state.toolCalls += 1;
    return;
  }
  if (item.type === "reasoning" && "summary" in item) {
    // Without its encrypted content a reasoning item cannot be replayed statelessly (the API
    // would look for a stored item), so only complete ones are kept.
    if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
      state.reasoningItems.push({
        type: "reasoning",
        id: item.id,
        summary: item.summary.map((part) => ({ type: "summary_text", text: part.text })),
        encrypted_content: item.encrypted_content,
      });
    }
    return;
  }
  const refusal = refusalOf(item);
  if (refusal !== undefined) {
    // A refusal is not an answer: kept out of history and not retried.
    throw new RefusalError({ message: refusal === "" ? "the model refused" : refusal, providerId });
  }
}

/**
 * Normalises a Responses event stream (as the SDK yields it) into `ProviderEvent`s: text and
 * reasoning-summary deltas as they come, each function call once its item is done (with the
 * exact argument text), then at the end one `replay` (when the response has replayable
 * reasoning), one `usage` and one `finish`. Failures inside the stream throw typed errors; a
 * stream that ends without a final response event was cut and throws `NetworkError`.
 */
export async function* convertResponsesStream(
  events: AsyncIterable<unknown>,
): AsyncGenerator<ProviderEvent> {
  const state: StreamState = { toolCalls: 0, reasoningItems: [], reasoningStarted: false };
  for await (const raw of events) {
    const event = parseEvent(raw);
    if (event === undefined) continue;
    switch (event.type) {
      case "response.output_text.delta":
        if (event.delta !== "") yield { type: "text-delta", text: event.delta };
        break;
      case "response.reasoning_summary_part.added":
        // Summary parts are separate paragraphs; keep them apart in the flat reasoning text.
        if (state.reasoningStarted) yield { type: "reasoning-delta", text: "\n\n" };
        break;
      case "response.reasoning_summary_text.delta":
        if (event.delta !== "") {
          state.reasoningStarted = true;
          yield { type: "reasoning-delta", text: event.delta };
        }
        break;
      case "response.output_item.done":
        yield* onItemDone(event.item, state);
        break;
      case "response.completed":
      case "response.incomplete": {
        if (state.reasoningItems.length > 0) {
          yield { type: "replay", state: createResponsesReplayState(state.reasoningItems) };
        }
        yield { type: "usage", usage: convertResponsesUsage(event.response.usage) };
        yield {
          type: "finish",
          reason: mapResponsesFinishReason({
            status: event.type === "response.completed" ? "completed" : "incomplete",
            incompleteReason: event.response.incomplete_details?.reason,
            hasToolCalls: state.toolCalls > 0,
          }),
        };
        return;
      }
      case "response.failed":
        throw classifyResponsesStreamError({
          code: event.response.error?.code,
          message: event.response.error?.message,
        });
      case "error":
        throw classifyResponsesStreamError({ code: event.code, message: event.message });
      default: {
        const exhaustive: never = event;
        throw new Error(`unhandled stream event ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  throw new NetworkError({
    message: "the stream ended before the response completed",
    providerId,
  });
}
