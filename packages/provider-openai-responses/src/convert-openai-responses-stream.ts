import { NetworkError, ProviderServerError, RefusalError } from "@cursor/run";
import type { ProviderEvent } from "@cursor/run";
import { convertOpenAIResponsesUsage } from "./convert-openai-responses-usage.js";
import { mapOpenAIResponsesFinishReason } from "./map-openai-responses-finish-reason.js";
import {
  knownOpenAIResponsesStreamEventTypes,
  openAIResponsesMessagePhaseSchema,
  openAIResponsesStreamEventSchema,
} from "./openai-responses-api.js";
import type {
  OpenAIResponsesOutputItem,
  OpenAIResponsesStreamEvent,
} from "./openai-responses-api.js";
import { classifyOpenAIResponsesStreamError } from "./openai-responses-errors.js";
import { openAIResponsesProviderId as providerId } from "./openai-responses-provider-id.js";
import { openAIResponsesMessageSeparator } from "./convert-openai-responses-assistant-message.js";
import { createOpenAIResponsesReplayState } from "./openai-responses-replay-state.js";
import type { OpenAIResponsesReplayItem } from "./openai-responses-replay-state.js";

function eventType(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null || !("type" in event)) return undefined;
  return typeof event.type === "string" ? event.type : undefined;
}

function parseEvent(event: unknown): OpenAIResponsesStreamEvent | undefined {
  const type = eventType(event);
  if (type === undefined || !knownOpenAIResponsesStreamEventTypes.has(type)) return undefined;
  const parsed = openAIResponsesStreamEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new ProviderServerError({
      message: `malformed ${type} event: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      providerId,
      cause: parsed.error,
    });
  }
  return parsed.data;
}

function refusalOf(item: OpenAIResponsesOutputItem): string | undefined {
  if (item.type !== "message" || !("content" in item)) return undefined;
  for (const part of item.content) {
    if (part.type === "refusal" && "refusal" in part) return part.refusal;
  }
  return undefined;
}

/** The state one response accumulates while it streams. */
interface StreamState {
  toolCalls: number;
  /** The response's output items so far, in output order (see `OpenAIResponsesReplayItem`). */
  items: OpenAIResponsesReplayItem[];
  reasoningStarted: boolean;
  /** Text streamed for the message item now open. */
  openText: string;
  /** True once any message text reached the client (later items start a new paragraph). */
  textStarted: boolean;
}

/** Text deltas of a message item; a new item's text starts a new paragraph. */
function* textDelta(text: string, state: StreamState): Generator<ProviderEvent> {
  if (text === "") return;
  if (state.openText === "" && state.textStarted) {
    yield { type: "text-delta", text: openAIResponsesMessageSeparator };
  }
  state.openText += text;
  state.textStarted = true;
  yield { type: "text-delta", text };
}

function messageText(item: OpenAIResponsesOutputItem): string {
  if (item.type !== "message" || !("content" in item)) return "";
  return item.content
    .map((part) => (part.type === "output_text" && "text" in part ? part.text : ""))
    .join("");
}

/**
 * Whether the items need replay state: a response that is one message (no phase) and calls
 * after it renders exactly from the canonical text and tool calls alone, so it stores none.
 */
function needsReplayState(items: readonly OpenAIResponsesReplayItem[]): boolean {
  let messages = 0;
  let sawCall = false;
  for (const item of items) {
    if (item.type === "reasoning") return true;
    if (item.type === "function_call") sawCall = true;
    if (item.type === "message") {
      messages += 1;
      if (item.phase !== undefined || messages > 1 || sawCall) return true;
    }
  }
  return false;
}

/** Events for one finished output item; throws on a refusal. */
function* onItemDone(
  item: OpenAIResponsesOutputItem,
  state: StreamState,
): Generator<ProviderEvent> {
  if (item.type === "function_call" && "call_id" in item) {
    yield {
      type: "tool-call",
      index: state.toolCalls,
      callId: item.call_id,
      name: item.name,
      arguments: item.arguments,
    };
    state.toolCalls += 1;
    state.items.push({ type: "function_call", call_id: item.call_id });
    return;
  }
  if (item.type === "reasoning" && "summary" in item) {
    // Without its encrypted content a reasoning item cannot be replayed statelessly (the API
    // would look for a stored item), so only complete ones are kept.
    if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
      state.items.push({
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
  if (item.type === "message" && "content" in item) {
    // A server that sent the text only in the finished item still gets it to the client.
    if (state.openText === "") yield* textDelta(messageText(item), state);
    const text = state.openText;
    state.openText = "";
    if (text === "") return;
    const phase = openAIResponsesMessagePhaseSchema.safeParse(item.phase);
    state.items.push(
      phase.success ? { type: "message", text, phase: phase.data } : { type: "message", text },
    );
  }
}

/**
 * Normalises a Responses event stream (as the SDK yields it) into `ProviderEvent`s: text and
 * reasoning-summary deltas as they come (a second message item's text starts a new paragraph),
 * each function call once its item is done (with the exact argument text), then at the end one
 * `replay` with the response's output items in order — reasoning items, each message item's
 * text and `phase`, function call positions — when they cannot be rebuilt from the text and the
 * calls alone, one `usage` and one `finish`. Failures inside the stream throw typed errors; a
 * stream that ends without a final response event was cut and throws `NetworkError`.
 */
export async function* convertOpenAIResponsesStream(
  events: AsyncIterable<unknown>,
): AsyncGenerator<ProviderEvent> {
  const state: StreamState = {
    toolCalls: 0,
    items: [],
    reasoningStarted: false,
    openText: "",
    textStarted: false,
  };
  for await (const raw of events) {
    const event = parseEvent(raw);
    if (event === undefined) continue;
    switch (event.type) {
      case "response.output_text.delta":
        yield* textDelta(event.delta, state);
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
        if (state.openText !== "") {
          // Text of a message item that never finished (an incomplete response).
          state.items.push({ type: "message", text: state.openText });
          state.openText = "";
        }
        if (needsReplayState(state.items)) {
          yield { type: "replay", state: createOpenAIResponsesReplayState(state.items) };
        }
        yield { type: "usage", usage: convertOpenAIResponsesUsage(event.response.usage) };
        yield {
          type: "finish",
          reason: mapOpenAIResponsesFinishReason({
            status: event.type === "response.completed" ? "completed" : "incomplete",
            incompleteReason: event.response.incomplete_details?.reason,
            hasToolCalls: state.toolCalls > 0,
          }),
        };
        return;
      }
      case "response.failed":
        throw classifyOpenAIResponsesStreamError({
          code: event.response.error?.code,
          message: event.response.error?.message,
        });
      case "error":
        throw classifyOpenAIResponsesStreamError({ code: event.code, message: event.message });
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
