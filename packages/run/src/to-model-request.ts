import { deepFreeze } from "./canonical-json.js";
import type { CanonicalMessage, ToolResultMessage } from "./canonical-message.js";
import { InvalidHistoryError } from "./errors.js";
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
// truncation limit, so they are memoised: a turn projects only what it appended. One memo per
// limit (there is one in practice), so an entry is the projection itself, with no wrapper.
const projectionCaches = new Map<number, WeakMap<CanonicalMessage, ModelMessage>>();

function projectOne(message: CanonicalMessage, limit: number): ModelMessage {
  let cache = projectionCaches.get(limit);
  const cached = cache?.get(message);
  if (cached !== undefined) return cached;
  const projected = deepFreeze(convertMessage(message, limit));
  if (Object.isFrozen(message)) {
    if (cache === undefined) {
      // A caller alternating between many limits gets no memo for the oldest ones, not unbounded ones.
      if (projectionCaches.size >= 8)
        projectionCaches.delete(projectionCaches.keys().next().value!);
      projectionCaches.set(limit, (cache = new WeakMap()));
    }
    cache.set(message, projected);
  }
  return projected;
}

function convertMessage(message: CanonicalMessage, limit: number): ModelMessage {
  switch (message.kind) {
    case "request-context":
    case "summary":
      return userMessage(message.id, message.kind, [{ type: "text", text: message.text }]);
    case "runtime":
    case "user":
      return userMessage(message.id, message.kind, message.content);
    case "assistant":
      return {
        role: "assistant",
        id: message.id,
        text: message.text,
        reasoning: message.reasoning,
        toolCalls: [...message.toolCalls].sort((a, b) => a.index - b.index),
        replay: message.replay,
      } satisfies ModelAssistantMessage;
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

function userMessage(
  id: string,
  source: ModelUserMessage["source"],
  content: ModelUserMessage["content"],
): ModelUserMessage {
  return { role: "user", id, source, content };
}

function toolMessage(message: ToolResultMessage, limit: number): ModelToolMessage {
  return {
    role: "tool",
    id: message.id,
    callId: message.callId,
    name: message.name,
    content: truncateToolResult(message.content, limit),
    isError: message.isError,
    ...(message.image === undefined ? {} : { image: message.image }),
  };
}

/**
 * What the last projection of one messages array left: its input up to `stable` (a point no
 * later append can reorder: not inside a tool round that still ran to the end), and the projected
 * messages of that part. A HistoryLog hands out its own array, which only grows: the next
 * projection checks that the array still starts with those inputs (a pointer comparison per
 * message) and projects only what follows. Any other change to the array is noticed and
 * projected afresh.
 */
interface ProjectedPrefix {
  readonly limit: number;
  readonly inputs: readonly CanonicalMessage[];
  readonly output: readonly ModelMessage[];
}

const projectedPrefixes = new WeakMap<readonly CanonicalMessage[], ProjectedPrefix>();

function reusablePrefix(
  messages: readonly CanonicalMessage[],
  limit: number,
): ProjectedPrefix | undefined {
  const memo = projectedPrefixes.get(messages);
  if (memo === undefined || memo.limit !== limit || memo.inputs.length > messages.length) {
    return undefined;
  }
  for (let k = memo.inputs.length - 1; k >= 0; k -= 1) {
    if (memo.inputs[k] !== messages[k]) return undefined;
  }
  return memo;
}

/**
 * The provider-neutral projection of the current epoch. One assistant message per tool round,
 * its calls sorted by index and followed by their results in call order (results may have been
 * committed in any order). Same history in, same request out; per-message work is memoised, and
 * a history that only grew since its last projection projects only what it appended.
 */
export function toModelRequest(options: ToModelRequestOptions): ModelRequest {
  const limit = options.maxToolResultChars ?? defaultMaxToolResultChars;
  const { messages } = options;
  const reused = reusablePrefix(messages, limit);
  const projected: ModelMessage[] = reused === undefined ? [] : reused.output.slice();
  let i = reused === undefined ? 0 : reused.inputs.length;
  // Where the projection is final (input index, output length): before an open tool round.
  let stableInputs = i;
  let stableOutputs = projected.length;
  while (i < messages.length) {
    const message = messages[i]!;
    projected.push(projectOne(message, limit));
    i += 1;
    if (message.kind !== "assistant" || message.toolCalls.length === 0) {
      stableInputs = i;
      stableOutputs = projected.length;
      continue;
    }
    // The results of a round follow its assistant message contiguously (HistoryLog enforces it).
    const start = i;
    while (i < messages.length && messages[i]!.kind === "tool-result") i += 1;
    const results = messages.slice(start, i) as ToolResultMessage[];
    if (results.length > 1) {
      const order = new Map(message.toolCalls.map((call) => [call.callId, call.index]));
      results.sort((a, b) => (order.get(a.callId) ?? 0) - (order.get(b.callId) ?? 0));
    }
    for (const result of results) projected.push(projectOne(result, limit));
    // A round that runs to the end may still get results, which sort in among these.
    if (i < messages.length) {
      stableInputs = i;
      stableOutputs = projected.length;
    }
  }
  if (stableInputs > (reused?.inputs.length ?? 0) || reused === undefined) {
    projectedPrefixes.set(messages, {
      limit,
      inputs: messages.slice(0, stableInputs),
      output: projected.slice(0, stableOutputs),
    });
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
