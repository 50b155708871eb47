import { deepFreeze } from "./canonical-json.js";
import type { CanonicalMessage, ToolCall, ToolResultMessage } from "./canonical-message.js";
import { InvalidHistoryError } from "./errors.js";
import { SequenceMemo } from "./sequence-memo.js";
import type {
  ModelAssistantMessage,
  ModelMessage,
  ModelRequest,
  ModelToolMessage,
  ModelUserMessage,
} from "./model-request.js";
import type { PromptSpec } from "./prompt-spec.js";
import { truncateToolResult } from "./truncate-tool-result.js";

export const defaultMaxToolResultChars = 100_000;
export const defaultUserTailText = "Continue.";

export interface ToModelRequestOptions {
  readonly conversationId: string;
  /** See `ModelRequest.cacheScope`. */
  readonly cacheScope?: string | undefined;
  readonly model: string;
  readonly promptSpec: PromptSpec;
  /** The current epoch's canonical messages, oldest first. */
  readonly messages: readonly CanonicalMessage[];
  readonly allowedTools?: readonly string[];
  /** Tool results longer than this are truncated in the request (default 100 000). */
  readonly maxToolResultChars?: number;
  /** Text of the transient user message added when history ends with the assistant. */
  readonly userTailText?: string;
  readonly maxOutputTokens?: number;
}

// Projected messages are frozen and depend only on the (frozen) canonical message and the
// truncation limit, so they are memoised per conversation (`SequenceMemo`: two pointers per
// message held, not a WeakMap entry): a turn projects only what it appended. One memo per limit
// (there is one in practice).
const projectionMemos = new Map<number, SequenceMemo<CanonicalMessage, ModelMessage>>();

function projectAll(messages: readonly CanonicalMessage[], limit: number): ModelMessage[] {
  let memo = projectionMemos.get(limit);
  if (memo === undefined) {
    // A caller alternating between many limits gets no memo for the oldest ones, not unbounded ones.
    if (projectionMemos.size >= 8) projectionMemos.delete(projectionMemos.keys().next().value!);
    projectionMemos.set(limit, (memo = new SequenceMemo()));
  }
  return memo.map(messages, (message) => deepFreeze(convertMessage(message, limit)));
}

function convertMessage(message: CanonicalMessage, limit: number): ModelMessage {
  switch (message.kind) {
    case "request-context":
    case "summary":
      return userMessage(message.id, message.kind, [{ type: "text", text: message.text }]);
    case "runtime":
    case "user":
      return userMessage(message.id, message.kind, message.content);
    case "assistant": {
      const toolCalls = inIndexOrder(message.toolCalls);
      // A frozen assistant message has every field of its projection, with the same values: it
      // is its own projection (it also carries `kind` and `origin`, which no provider reads), so
      // a conversation, and each provider request a gateway keeps of it, holds no second object
      // per answer.
      if (toolCalls === message.toolCalls && Object.isFrozen(message)) {
        return message satisfies ModelAssistantMessage;
      }
      return {
        role: "assistant",
        id: message.id,
        text: message.text,
        reasoning: message.reasoning,
        toolCalls,
        replay: message.replay,
      } satisfies ModelAssistantMessage;
    }
    case "tool-result":
      return toolMessage(message, limit);
    default: {
      const exhaustive: never = message;
      throw new InvalidHistoryError({
        message: `unknown message kind ${JSON.stringify(exhaustive)}`,
      });
    }
  }
}

/**
 * The calls sorted by index: the message's own frozen list when it already is, which the
 * projection then shares instead of holding a copy for as long as the conversation is open (a
 * list that is not frozen is copied: the projection is frozen, the caller's input never is).
 */
function inIndexOrder(calls: readonly ToolCall[]): readonly ToolCall[] {
  const sorted = calls.every((call, at) => at === 0 || calls[at - 1]!.index <= call.index);
  return sorted && Object.isFrozen(calls) ? calls : [...calls].sort((a, b) => a.index - b.index);
}

function userMessage(
  id: string,
  source: ModelUserMessage["source"],
  content: ModelUserMessage["content"],
): ModelUserMessage {
  return { role: "user", id, source, content };
}

function toolMessage(message: ToolResultMessage, limit: number): ModelToolMessage {
  const content = truncateToolResult(message.content, limit);
  // Likewise a frozen result that needs no truncation.
  if (content === message.content && Object.isFrozen(message)) {
    return message satisfies ModelToolMessage;
  }
  return {
    role: "tool",
    id: message.id,
    callId: message.callId,
    name: message.name,
    content,
    isError: message.isError,
    ...(message.image === undefined ? {} : { image: message.image }),
  };
}

/**
 * Whether `messages[start..end)` (a round's results) already follow their calls' index order,
 * the order the projection puts them in. A call id the round does not have sorts as index 0, as
 * in the general path.
 */
function resultsInCallOrder(
  calls: readonly ToolCall[],
  messages: readonly CanonicalMessage[],
  start: number,
  end: number,
): boolean {
  if (end - start <= 1) return true;
  let previous = -Infinity;
  for (let at = start; at < end; at += 1) {
    const { callId } = messages[at] as ToolResultMessage;
    const index = calls.find((call) => call.callId === callId)?.index ?? 0;
    if (index < previous) return false;
    previous = index;
  }
  return true;
}

/**
 * The provider-neutral projection of the current epoch. One assistant message per tool round,
 * its calls sorted by index and followed by their results in call order (results may have been
 * committed in any order). Same history in, same request out; per-message work is memoised.
 */
export function toModelRequest(options: ToModelRequestOptions): ModelRequest {
  const limit = options.maxToolResultChars ?? defaultMaxToolResultChars;
  const { messages } = options;
  const each = projectAll(messages, limit);
  const projected: ModelMessage[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    projected.push(each[i]!);
    i += 1;
    if (message.kind !== "assistant" || message.toolCalls.length === 0) continue;
    // The results of a round follow its assistant message contiguously (HistoryLog enforces it).
    const start = i;
    while (i < messages.length && messages[i]!.kind === "tool-result") i += 1;
    if (resultsInCallOrder(message.toolCalls, messages, start, i)) {
      // The common case (one call, or results committed in call order): nothing to sort, and
      // nothing allocated per round of a long history.
      for (let at = start; at < i; at += 1) projected.push(each[at]!);
      continue;
    }
    const order = new Map(message.toolCalls.map((call) => [call.callId, call.index]));
    const callIndex = (at: number) => order.get((messages[at] as ToolResultMessage).callId) ?? 0;
    const results: number[] = [];
    for (let at = start; at < i; at += 1) results.push(at);
    results.sort((a, b) => callIndex(a) - callIndex(b));
    for (const at of results) projected.push(each[at]!);
  }
  const last = projected[projected.length - 1];
  if (last?.role === "assistant") {
    projected.push(
      deepFreeze(
        userMessage("tail", "tail", [
          { type: "text", text: options.userTailText ?? defaultUserTailText },
        ]),
      ),
    );
  }
  return Object.freeze({
    conversationId: options.conversationId,
    ...(options.cacheScope === undefined ? {} : { cacheScope: options.cacheScope }),
    model: options.model,
    instructions: options.promptSpec.instructions,
    tools: options.promptSpec.tools,
    ...(options.allowedTools === undefined
      ? {}
      : { allowedTools: Object.freeze([...options.allowedTools]) }),
    messages: Object.freeze(projected),
    promptSpecDigest: options.promptSpec.digest,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  });
}
