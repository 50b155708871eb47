import type { ModelMessage, ModelRequest } from "./model-request.js";
import type { ToolSpec } from "./prompt-spec.js";
import { SequenceMemo } from "./sequence-memo.js";
import { countMessageTokens, countTextTokens, o200kTokenUpperBound } from "./token-count.js";

/**
 * What the provider reported for the last successful call: `inputTokens` covered the first
 * `messageCount` projected messages of epoch `epoch` (plus instructions and tools). Later
 * estimates start from it and count only what was appended since.
 */
export interface TokenAnchor {
  readonly epoch: number;
  readonly messageCount: number;
  readonly inputTokens: number;
}

/** Output tokens (and slack for the estimate's error) kept free below the context window. */
export const defaultReserveTokens = 20_000;

/**
 * The input token budget: the context window minus a reserve for the answer. With
 * `maxOutputTokens` the reserve is at least that.
 */
export function contextBudget({
  contextWindowTokens,
  reserveTokens = defaultReserveTokens,
  maxOutputTokens = 0,
}: {
  contextWindowTokens: number;
  reserveTokens?: number;
  maxOutputTokens?: number;
}): number {
  return Math.max(0, contextWindowTokens - Math.max(reserveTokens, maxOutputTokens));
}

// Instructions and tools are fixed per prompt spec; the frozen tools array identifies it. Kept
// for the last counter used only (one tokenizer per process in practice).
const specTokenCache = new WeakMap<
  readonly ToolSpec[],
  { instructions: string; countTokens: (text: string) => number; tokens: number }
>();

function countSpecTokens(request: ModelRequest, countTokens: (text: string) => number): number {
  const cached = specTokenCache.get(request.tools);
  if (
    cached !== undefined &&
    cached.instructions === request.instructions &&
    cached.countTokens === countTokens
  ) {
    return cached.tokens;
  }
  const tokens =
    countTokens(request.instructions) +
    request.tools.reduce(
      (sum, tool) =>
        sum + countTokens(`${tool.name}\n${tool.description}\n${JSON.stringify(tool.inputSchema)}`),
      0,
    );
  if (Object.isFrozen(request.tools)) {
    specTokenCache.set(request.tools, { instructions: request.instructions, countTokens, tokens });
  }
  return tokens;
}

// The counts of a conversation's projected (frozen) messages, per counter function: a history
// counted without an anchor (its first call in this process) is tokenised once, and a later
// unanchored call counts only what it appended. Held per conversation (`SequenceMemo`), not as
// a WeakMap entry per message.
const messageCounts = new WeakMap<(text: string) => number, SequenceMemo<ModelMessage, number>>();

function messageCountsFor(
  countTokens: (text: string) => number,
): SequenceMemo<ModelMessage, number> {
  let memo = messageCounts.get(countTokens);
  if (memo === undefined) messageCounts.set(countTokens, (memo = new SequenceMemo()));
  return memo;
}

/** `anchor`, when it counts the start of this request's messages (same epoch, not past them). */
function usableAnchor({
  anchor,
  epoch,
  messages,
}: {
  anchor: TokenAnchor | undefined;
  epoch: number;
  messages: readonly ModelMessage[];
}): TokenAnchor | undefined {
  return anchor !== undefined && anchor.epoch === epoch && anchor.messageCount <= messages.length
    ? anchor
    : undefined;
}

/**
 * Estimated input tokens of `request`. With an anchor from the same epoch this is the anchor's
 * provider-counted `inputTokens` plus a tokenizer count of the messages after it, so the work
 * is O(messages since the last call). Without one, every message is counted (the counts of a
 * conversation's messages are memoised, so a long history is tokenised once per process, not
 * per turn).
 */
export function estimateRequestTokens({
  request,
  epoch,
  anchor,
  countTokens = countTextTokens,
}: {
  request: ModelRequest;
  epoch: number;
  anchor?: TokenAnchor | undefined;
  countTokens?: (text: string) => number;
}): number {
  const { messages } = request;
  const anchored = usableAnchor({ anchor, epoch, messages });
  if (anchored !== undefined) {
    // Only what the history appended since the anchor: counted once, nothing to remember.
    let total = anchored.inputTokens;
    for (let i = anchored.messageCount; i < messages.length; i += 1) {
      total += countMessageTokens(messages[i]!, countTokens);
    }
    return total;
  }
  let total = countSpecTokens(request, countTokens);
  for (const tokens of messageCountsFor(countTokens).map(messages, (message) =>
    countMessageTokens(message, countTokens),
  )) {
    total += tokens;
  }
  return total;
}

/** Whether a request fits its input budget; the estimate is there when it does not. */
export type TokenBudgetCheck =
  { readonly fits: true } | { readonly fits: false; readonly estimate: number };

/**
 * Whether {@link estimateRequestTokens} of `request` stays within `budgetTokens`, deciding
 * exactly as comparing the estimate would. Most calls are far below the budget: an upper bound
 * of the tokens added since the anchor (`tokenUpperBound`, for the default counter three per
 * UTF-16 unit) settles them without tokenising anything; only a request the bound cannot clear
 * is counted. A custom `countTokens` has no known bound unless one is given, and is counted.
 */
export function checkTokenBudget({
  request,
  epoch,
  anchor,
  budgetTokens,
  countTokens = countTextTokens,
  tokenUpperBound = countTokens === countTextTokens ? o200kTokenUpperBound : undefined,
}: {
  request: ModelRequest;
  epoch: number;
  anchor?: TokenAnchor | undefined;
  budgetTokens: number;
  countTokens?: (text: string) => number;
  /** A function never below `countTokens` for any text. */
  tokenUpperBound?: ((text: string) => number) | undefined;
}): TokenBudgetCheck {
  if (tokenUpperBound !== undefined) {
    const { messages } = request;
    const anchored = usableAnchor({ anchor, epoch, messages });
    let bound = anchored?.inputTokens ?? countSpecTokens(request, countTokens);
    for (let i = anchored?.messageCount ?? 0; i < messages.length; i += 1) {
      if (bound > budgetTokens) break;
      bound += countMessageTokens(messages[i]!, tokenUpperBound);
    }
    if (bound <= budgetTokens) return { fits: true };
  }
  const estimate = estimateRequestTokens({ request, epoch, anchor, countTokens });
  return estimate > budgetTokens ? { fits: false, estimate } : { fits: true };
}

/** The anchor to keep after a successful call on `request` (its transient tail excluded). */
export function tokenAnchorFor({
  request,
  epoch,
  inputTokens,
}: {
  request: ModelRequest;
  epoch: number;
  inputTokens: number;
}): TokenAnchor {
  const last = request.messages.at(-1);
  const tail = last?.role === "user" && last.source === "tail" ? 1 : 0;
  return { epoch, messageCount: request.messages.length - tail, inputTokens };
}
